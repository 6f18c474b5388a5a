/** The source of extension/opencode.ts, with its placeholder still in. */
declare const text: string;
export default text;
