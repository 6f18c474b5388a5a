import { findSecrets } from "./cli/sessions/secrets.ts";
const fragments = ["_authToken=", "PASSWORD=x", "password=", "AccountKey=", "DB_PASS=xbqowr406!JS", "token: ", "--token ", "curl -u ", "a", "password is "];
const time = (text: string) => { const t = performance.now(); findSecrets(text); return performance.now() - t; };
for (const f of fragments) {
  const small = f.repeat(Math.ceil(1e6 / f.length));
  const big = f.repeat(Math.ceil(8e6 / f.length));
  const a = time(small), b = time(big);
  console.log(JSON.stringify(f).padEnd(36), a.toFixed(0).padStart(6), b.toFixed(0).padStart(6), (b / a).toFixed(1));
}
