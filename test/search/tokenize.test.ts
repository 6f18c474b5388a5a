import { describe, expect, test } from "bun:test";
import { stem } from "../../cli/text/stem.ts";
import { tokenize } from "../../cli/text/tokenize.ts";

describe("tokenize", () => {
  test("keeps code-ish names whole and splits them into words", () => {
    expect(tokenize("hdf5::File")).toEqual(["hdf5::file", "hdf5", "fil"]);
    expect(tokenize("--start-group")).toEqual(["start-group", "start", "group"]);
    expect(tokenize("H5Fopen HTTPServer")).toEqual(["h5fopen", "h5", "fopen", "httpserver", "http", "server"]);
    expect(tokenize("snake_case_name")).toContain("snak");
  });
  test("keeps error codes and versions whole, drops stop words", () => {
    expect(tokenize("error[E0382]: use of moved value")).toEqual(["error", "e0382", "use", "mov", "valu"]);
    expect(tokenize("The fix is in the file 1.14.2")).toEqual(["fix", "fil", "1.14.2"]);
  });
  test("linker flags and library files give the library name", () => {
    expect(tokenize("-lfoo")).toEqual(["lfoo", "foo"]);
    expect(tokenize("/usr/lib/libbar.so.2")).toContain("bar");
  });
});

describe("stem", () => {
  test("folds inflections of one word together", () => {
    const forms = ["compile", "compiles", "compiled", "compiling"].map(stem);
    expect(new Set(forms).size).toBe(1);
    expect(stem("libraries")).toBe(stem("library"));
    expect(stem("running")).toBe("run");
  });
  test("leaves words whose ending is part of the word", () => {
    expect(stem("string")).toBe("string");
    expect(stem("status")).toBe("status");
    expect(stem("install")).toBe(stem("installed"));
  });
});
