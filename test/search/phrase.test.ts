import { describe, expect, test } from "bun:test";
import { align, gaps, phraseOf } from "../../cli/search/phrase.ts";
import { type SpecificsContext, compareLines, contradiction, counterpart, type WeightedPhrase } from "../../cli/search/specifics.ts";
import { termSequence } from "../../cli/text/tokenize.ts";

const none = new Set<string>();
const phrase = (line: string) => phraseOf(line, none);
const weighted = (line: string): WeightedPhrase => {
  const p = phrase(line);
  return { ...p, weights: p.terms.map(() => 1) };
};

describe("a line as a phrase", () => {
  test("terms in order, each a word, a name or a quoted word", () => {
    const p = phrase('no matches for kind "Ingress" in version pytorch-cuda for deploy@');
    expect(p.terms).toEqual(["no", "match", "kind", "ingress", "version", "pytorch-cuda", "deploy"]);
    expect(p.kinds).toEqual(["word", "word", "word", "quoted", "word", "name", "name"]);
  });
  test("a linker flag stands for its library; a quoted stop word alone is a name", () => {
    const p = phrase("cannot find -lz No rule to make target 'all'");
    expect(p.aliases[p.terms.indexOf("lz")]).toBe("z");
    expect(p.terms).toContain("all");
  });
  test("a program name the message quotes stays; one that prints it goes", () => {
    expect(phraseOf("mvn: 'mvn' is not recognized", new Set(["mvn"])).terms).toEqual(["mvn", "not", "recogniz"]);
  });
  test("words that say something went wrong are marked", () => {
    const p = phrase("The CXX compiler identification is unknown");
    expect(p.errorWords[p.terms.indexOf("unknown")]).toBe(true);
    expect(p.errorWords[p.terms.indexOf("compiler")]).toBe(false);
  });
});

describe("aligning two phrases", () => {
  test("the words both say in order; swapped words cannot both align", () => {
    const a = termSequence("Intel processor in the ARM default prefix");
    const b = termSequence("ARM processor in the Intel default prefix");
    const said = align(a, b).map(([i]) => a[i]);
    expect(said).toEqual(expect.arrayContaining(["default", "prefix"]));
    expect(said.filter((t) => t === "intel" || t === "arm").length).toBeLessThanOrEqual(1);
  });
  test("gaps between anchors, before the first and after the last", () => {
    expect(gaps([[1, 1]], 3, 2)).toEqual([
      { a: [0], b: [0], edge: "start" },
      { a: [2], b: [], edge: "end" },
    ]);
  });
});

describe("frame and specifics of an error line against a quote", () => {
  const ctx = (over: Partial<SpecificsContext> = {}): SpecificsContext => ({
    lessonTerms: new Set(),
    titleTerms: new Set(),
    ownTerms: new Set(),
    runTerms: new Set(),
    errorTerms: new Set(),
    known: () => false,
    ...over,
  });
  const compare = (line: string, quote: string, over: Partial<SpecificsContext> = {}) => compareLines(phrase(line), phrase(quote), () => 1, ctx(over));
  test.each<[string, string, string, Partial<SpecificsContext>, string | undefined]>([
    ["the run's own symbol", "multiple definition of `g_config'; first defined here", "multiple definition of `verbose'; first defined here", {}, undefined],
    ["swapped types", "expected `&str`, found `String`", "expected `String`, found `&str`", {}, "swapped"],
    ["swapped words", "Cannot install on Intel processor in ARM default prefix", "Cannot install on ARM processor in Intel default prefix", {}, "swapped"],
    [
      "another reason the lesson speaks of",
      "cannot list resource pods at the cluster scope",
      "cannot list resource pods in the namespace",
      { ownTerms: new Set(["namespac"]) },
      "the lesson's own words",
    ],
    ["a word only the lesson's output shows", "Failed to execute goal on project orders: boom", "Failed to execute goal on project app: boom", {}, undefined],
    [
      "the name each gives before its colon",
      "Failed to execute goal on project orders: boom",
      "Failed to execute goal on project app: boom",
      { known: () => true },
      undefined,
    ],
    [
      "a word lessons use, in the lesson's word's place",
      "gizmo: permission denied, rename the cache",
      "gizmo: permission denied, mkdir the cache",
      { known: () => true },
      "a word of messages",
    ],
    [
      "a word no lesson uses",
      "gizmo: permission denied, frobnicate the cache",
      "gizmo: permission denied, mkdir the cache",
      { known: (t) => !t.startsWith("frob") },
      undefined,
    ],
    [
      "the lesson's title names its own",
      "packages are not available: - opencv-python",
      "packages are not available: - pytorch-cuda",
      { titleTerms: new Set(["pytorch-cuda"]) },
      "the lesson's title names its word",
    ],
    ["the command's package", "Failed building wheel for netifaces", "Failed building wheel for lxml", { runTerms: new Set(["netifac"]) }, undefined],
    [
      "the lesson says it failed, the error does not",
      "The CXX compiler identification is Clang 17.0.6",
      "The CXX compiler identification is unknown",
      {},
      "the lesson's line reports a failure there",
    ],
    ["an errno and its message", "userland proxy: Bind for: Failure EADDRINUSE", "userland proxy: Bind for: address already in use", {}, undefined],
    [
      "a closer name",
      "Could not open cp_settings generic class cache",
      "Could not open settings generic class cache",
      { ownTerms: new Set(["set"]) },
      undefined,
    ],
    [
      "the quoted subject",
      "'mvn' is not recognized as a command",
      "'python' is not recognized as a command",
      { titleTerms: new Set(["python"]) },
      "the lesson's title names its word",
    ],
    [
      "the error going on after the quote",
      'Could not find a package provided by "fmt" with any of the following names',
      'Could not find a package provided by "Foo"',
      {},
      undefined,
    ],
    [
      "more of the message where the quote has a name",
      "No rule to make target 'Makefile', needed by Stop",
      "No rule to make target 'all'. Stop",
      {},
      "more of the message",
    ],
  ])("%s", (_, line, quote, over, differs) => {
    const c = compare(line, quote, over);
    expect(c.frame.length).toBeGreaterThanOrEqual(2);
    expect(c.differs?.differs).toBe(differs as never);
  });
  test("the slots say what each line has in the frame's place", () => {
    const c = compare("Unable to negotiate: no matching key exchange method found", "Unable to negotiate: no matching host key type found", {
      ownTerms: new Set(["typ"]),
    });
    expect(c.frame).toEqual(["unabl", "negotiat", "no", "match", "key", "found"]);
    expect(c.differs?.failure).toEqual(expect.arrayContaining(["exchang"]));
  });
  test("a common word matched alone is no frame", () => {
    expect(compare("error reading the file config.toml", "the file is a directory").frame).toEqual([]);
  });
  test("one quote line said otherwise by the output, unless another line agrees", () => {
    const quote = weighted("The CXX compiler identification is unknown");
    const clang = weighted("The CXX compiler identification is Clang 17.0.6");
    expect(contradiction([clang], [quote], ctx())?.comparison.differs?.failure).toEqual(["clang"]);
    expect(contradiction([clang, weighted("The CXX compiler identification is unknown")], [quote], ctx())).toBeUndefined();
    expect(counterpart([weighted("Configuring incomplete")], quote, ctx())).toBeUndefined();
  });
  test("a line another quote of the lesson says as it is contradicts none of its quotes", () => {
    const file = weighted("error: unable to create file in the tree: Filename too long");
    const quotes = [
      weighted("fatal: unable to create directory in the tree: Filename too long"),
      weighted("error: unable to create file in the tree: Filename too long"),
    ];
    const known = ctx({ known: () => true });
    expect(contradiction([file], quotes.slice(0, 1), known)?.comparison.differs?.failure).toEqual(["fil"]);
    expect(contradiction([file], quotes, known)).toBeUndefined();
  });
});
