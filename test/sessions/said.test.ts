import { describe, expect, test } from "bun:test";
import { normalise, typedParagraphs, userSignals } from "../../cli/sessions/said.ts";

describe("corrections", () => {
  test.each([
    // opening the message or a clause
    "No, use the system zlib.",
    "no, it should go in /etc",
    "nope, the other file",
    "Actually the tests live in spec/",
    "That's wrong, the port is 8080.",
    "that is wrong",
    "Don’t push to main.",
    "Do not run the migrations.",
    "Stop doing that.",
    "Instead, call the API directly.",
    "ok. Don't touch the lockfile",
    "wait, that deletes the cache too",
    "this isn't right, the header moved",
    // in the middle of a message
    "ok that part looks fine.\n\nno, that's horrible. tools -> core/tools",
    "looks ok, but don't add a dependency for this",
    "put it under Unreleased instead of 2.3.0",
    "hm, actually put the helpers in lib/",
    "the default is actually 8080",
    "you haven't read the whole file",
    "you havne't read the config in full",
    "you forgot the migration",
    "i reverted your change to the parser",
    "please undo that, the old name was right",
    "the border should be dimmer",
    "this doesn't look right to me",
    // pointed questions naming the alternative
    "not the fixture loader? it already knows the paths",
    "why do you read the file 50 lines at a time?",
    "why would we keep two copies?",
    "can't we get that from the settings object?",
    "isn't that already in the session manager?",
    "why are we calling save() and not flush() here?",
    "thatÄ's not the entry point. see main.ts",
    "why not just run it through turbo so the deps build first?",
    "shouldn't the parser use a streaming reader rather than reading it whole?",
    "wouldn't a plain map be simpler here?",
    "use the queue rather than a cron job",
    // what is right and what the agent used, both code
    "looks fine but no, the vat id check goes in src/Tax/ not src/Invoice/. invoice shouldnt know about vat rules",
    "use lowercase :z not :Z on the cache volume",
    "it's `pnpm` not `npm` in this repo",
    "the port is 8080, not 3000",
    "dont hand roll the date parsing with Scanf, ptime has Ptime.of_rfc3339 already",
    "ok ma non passare il flag ogni volta, mettilo in ~/.config/nix/nix.conf",
    // the same constructs in other languages
    "nein, nicht so. Benutze bitte den Release-Branch.",
    "Die Tests gehören nicht nach src/, sondern nach test/.",
    "Warum nicht einfach die Standardbibliothek?",
    "non, garde l'ancienne API",
    "Pourquoi pas un dictionnaire au lieu de la liste ?",
    "¿por qué no usas un Map en lugar del objeto?",
    "mejor usa la cola en vez de un bucle",
    "usa il logger invece di print",
    "いや、そのファイルは消さないでください",
    "リストではなく辞書を使ってください",
    "用队列而不是轮询",
  ])("correction: %p", (text) => {
    expect(userSignals(text).correction).toBeDefined();
  });

  test.each([
    "Run the tests please.",
    "Is that wrong?",
    "Is that the right version?",
    "did you update the docs as well?",
    "Do you remember where the config is?",
    "I don't know what happened",
    "Nothing actually failed, all good",
    "The notes are in docs/",
    "the tests still fail on my machine",
    "make the header a little darker",
    "not sure what you mean",
    "no problem, take your time",
    "that would be nicer, no?",
    "if i change it, not everything updates",
    "why do you think it fails?",
    "it should be able to read both",
    "it's broken on main too, leave it",
    "non-blocking reads would be nice",
    "yeah that one is flaky on ci too, not today. ok go ahead with the image.",
    "not now, first finish the migration",
    "ok va bene così, grazie.",
    // a message that hands over a secret says how to keep it: new requirements
    "nice. the token is [masked:github-token]. put it in ~/.gradle/gradle.properties, NOT the repo one",
    "use this webhook secret for local testing: [masked:stripe-key] (it goes in .env.local, dont print the other keys)",
    "it is not working on 3.12",
    // other languages: what is no correction stays none
    "Sieht gut aus, danke!",
    "これで大丈夫です、ありがとう",
    "parfait, merci",
  ])("nothing: %p", (text) => {
    expect(userSignals(text).correction).toBeUndefined();
  });

  test("an address is no secret: a message that holds one may correct", () => {
    expect(userSignals("no, send it to [masked:email] not the list").correction).toBeDefined();
  });

  test("the first message of a session corrects nothing: the agent has done nothing yet", () => {
    expect(userSignals("Don't use the ORM, write the SQL.", { agentActed: false }).correction).toBeUndefined();
    expect(userSignals("Don't use the ORM, write the SQL.", { agentActed: true }).correction).toBe("Don't use the ORM, write the SQL.");
  });

  test("a standing rule's own negations are the rule, not a correction", () => {
    expect(userSignals("never run db:reset against anything but development, not even staging")).toEqual({
      remember: "never run db:reset against anything but development, not even staging",
    });
    expect(userSignals("from now on, always pin exact versions, no ranges").correction).toBeUndefined();
    expect(userSignals("no, always use pnpm here").correction).toBe("no, always use pnpm here");
  });

  test("the correction is the sentence that corrects, not the whole message", () => {
    expect(userSignals("ok that part looks fine.\n\nno, that's horrible. tools -> core/tools").correction).toBe("no, that's horrible.");
    expect(userSignals("No, use the system zlib from\n/usr/lib instead of the bundled one.\n\nThen build.").correction).toBe(
      "No, use the system zlib from /usr/lib instead of the bundled one.",
    );
  });
});

describe("requests to remember", () => {
  test.each([
    "Remember that the staging DB is read-only.",
    "Remember: the VPN must be up.",
    "Rember that the staging database is read only.",
    "please remeber to run the linter first",
    "From now on always run the linter before you commit.",
    "Never push tags before CI passes.",
    "always use pnpm in this repo",
    "invalid configs must NEVER crash the app",
    "make sure you read CONTRIBUTING.md whenever you add a package",
    "Keep in mind the CI has no network",
    "Note that builds need -j4 here.",
    "don't forget to bump the version",
    "Merk dir bitte: immer erst die Tests laufen lassen.",
    "Ab jetzt bitte nie mehr direkt auf main pushen.",
    "Désormais, lance toujours ruff avant de committer.",
    "recuerda: de ahora en adelante, siempre ejecuta cargo fmt",
    "d'ora in poi usa sempre il logger",
    "今後は必ずシードを固定してください。",
  ])("remember: %p", (text) => {
    expect(userSignals(text).remember).toBeDefined();
  });

  test.each([
    "Do you remember where the config is?",
    "also remember the docs/plan.md file, read it now",
    "Keep in mind the API is slow for this task.",
    "that should never happen",
    "make sure the tests pass",
    "I always forget the flag",
    "the member list is empty",
    "never mind, I'll start it myself",
    "Behalte für diese Aufgabe im Hinterkopf, dass die API langsam ist.",
    "Pour cette tâche, garde en tête que l'API est lente.",
    "recuerda el archivo config.ts por ahora",
  ])("nothing: %p", (text) => {
    expect(userSignals(text).remember).toBeUndefined();
  });

  test("a signal keeps its whole sentence: dots in words and wrapped lines do not cut it", () => {
    expect(userSignals("Remember to add src to sys.path before the tests. Thanks").remember).toBe("Remember to add src to sys.path before the tests.");
    expect(userSignals("Note that v1.2 of the plugin, e.g. the one in CI, needs Java 17.").remember).toBe(
      "Note that v1.2 of the plugin, e.g. the one in CI, needs Java 17.",
    );
  });
});

describe("what the user typed", () => {
  test("pasted blocks, output and documents are left out", () => {
    const message = [
      '<skill name="release" location="~/skills/release/SKILL.md">',
      "Never push tags before CI passes. Don't edit the changelog.",
      "</skill>",
      "",
      "this crashes when I run it:",
      "",
      "$ python bot.py",
      "Traceback (most recent call last):",
      '  File "bot.py", line 9, in <module>',
      "ValueError: don't know how to handle 'ping'",
      "",
      "```",
      "no, this is code",
      "```",
      "> Actually, the quoted text is theirs",
      '{"type":"message","text":"don\'t"}',
      "+ 8 - added line",
      "  12 │ const x = error();",
      "can you look?",
    ].join("\n");
    expect(typedParagraphs(message)).toEqual(["this crashes when I run it:", "can you look?"]);
    expect(userSignals(message)).toEqual({});
  });

  test("a long pasted document: only its first and last lines are read", () => {
    const rules = Array.from({ length: 80 }, (_, i) => `- Step ${i}: actually wait, don't retry. Remember that the queue is slow.`);
    const message = ["Summary of the previous session:", ...rules, "Continue from here please"].join("\n");
    expect(typedParagraphs(message)).toEqual(["Summary of the previous session:", "Continue from here please"]);
    expect(userSignals(message)).toEqual({});
  });

  test("typos of the words the rules key on are read as the words; other words stay", () => {
    expect(normalise("Rember, I havne't said Actualy")).toBe("remember, i haven't said actually");
    expect(normalise("the actual member")).toBe("the actual member");
  });
});
