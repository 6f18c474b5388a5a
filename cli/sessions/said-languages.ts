// The markers of said.ts in other languages: the same constructs (a reply that opens with "no",
// "instead of", "why not …?", "remember", "from now on", "always"/"never" as a rule, "for this
// task", "but", "all good"), in German, French, Spanish, Italian, Portuguese, Dutch, Japanese and Chinese. Only phrases
// that say it plainly: a message in a language not listed still matches nothing (no harm done).
// Read on text said.ts has lower-cased; Latin-script words are bounded by non-letters, CJK ones not
// (they are written without spaces).

const word = (alternatives: string) => `(?<![\\p{L}\\p{N}])(?:${alternatives})(?![\\p{L}\\p{N}])`;

/** A reply that opens with "no" (the English `no,` covers Spanish and Italian). */
export const OPENS_OTHER = new RegExp(`^(?:${word("nein|não|nee")}|non(?=[\\s,.!:]|$)|(?:いや|いいえ|違う|ちがう)[、,\\s]|不是|不对|不要)`, "u");

/** "… instead of …", "not X but Y". */
export const INSTEAD_OTHER = new RegExp(
  `${word("statt|anstatt|stattdessen|sondern|en vez de|en lugar de|au lieu de|plutôt que|invece di|al posto di|em vez de|ao invés de|in plaats van")}|ではなく|じゃなくて|じゃなく|の代わりに|而不是`,
  "u",
);

/** "why not …?": the question names the thing to use. */
export const WHY_NOT_OTHER = new RegExp(
  `^[¿]?${word("(?:warum|wieso|weshalb) (?:denn )?nicht|por qu[ée] no|pourquoi (?:pas|ne)|perch[ée] non|por que n[ãa]o|waarom niet")}`,
  "u",
);

/** Standing rules: "remember …", "from now on …", "keep in mind …", and "always"/"never" opening a clause. */
export const REMEMBER_OTHER = [
  new RegExp(
    word(
      "merk (?:dir|euch)|denk (?:bitte )?dran|denk (?:bitte )?daran|vergiss nicht|recuerda|no olvides|rappelle-toi|souviens-toi|n'oublie pas|ricorda(?:ti)?|non dimenticare|lembre-se|lembra-te|não esqueça|onthoud|vergeet niet",
    ),
    "u",
  ),
  new RegExp(
    `${word("ab (?:jetzt|sofort|nun)|von (?:nun|jetzt) an|in zukunft|für die zukunft|künftig|de ahora en adelante|a partir de ahora|desde ahora|en adelante|désormais|dorénavant|à partir de maintenant|d'ora in (?:poi|avanti)|da ora in poi|de agora em diante|a partir de agora|daqui para a frente|vanaf nu|voortaan")}|今後|これからは|以後は|从现在(?:开始|起)|以后`,
    "u",
  ),
  new RegExp(
    word("im hinterkopf|ten en cuenta|ten presente|garde (?:en tête|à l'esprit)|tieni (?:a mente|presente)|tenha em mente|houd (?:er )?rekening"),
    "u",
  ),
  new RegExp(`^${word("immer|nie|niemals|siempre|nunca|jamás|toujours|jamais|sempre|altijd|nooit")} \\S|^(?:必ず|常に|絶対に|始终|永远不要|总是)`, "u"),
];

/** …meant for now only ("für diese Aufgabe", "pour cette tâche", "por ahora", "per questo task"). */
export const FOR_NOW_OTHER = new RegExp(
  `${word("für (?:diese|die) aufgabe|für diesen task|für jetzt|vorerst|fürs erste|diesmal|para esta tarea|por ahora|esta vez|pour cette tâche|pour l'instant|pour le moment|cette fois|per questo (?:compito|task)|per ora|questa volta|para esta tarefa|por enquanto|desta vez|voor deze taak|voor nu|deze keer")}|今回(?:は|だけ)|このタスク|这次|这个任务`,
  "u",
);

/** "but", which opens a clause that may take back the one before ("ok ma non …", "looks fine but no, …"). */
export const BUT_OTHER = "aber|mais|pero|ma|mas|maar";

/** A reply that says all is well ("va bene così, grazie", "passt, danke"). */
export const ALL_WELL_OTHER = new RegExp(
  `${word("danke|passt|sieht gut aus|merci|parfait|c'est bon|ça marche|gracias|está bien|perfecto|grazie|va bene|perfetto|obrigad[oa]|tudo bem|perfeito|bedankt|dank je|ziet er goed uit")}|ありがとう|大丈夫|谢谢|没问题`,
  "u",
);
