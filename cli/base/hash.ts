// SHA-256 and random ids through Bun's and the web's built-ins: importing node:crypto loads Node's
// stream machinery, a few milliseconds of every short-lived rkb process.

export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
