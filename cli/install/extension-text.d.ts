/** The source of extension/rkb.ts, with its placeholders still in. */
declare const text: string;
export default text;
