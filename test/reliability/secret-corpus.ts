// Secret shapes for the masking and leak tests: made up, but shaped like the real ones. Each
// `secret` is the part that must never reach a file rkb writes; `line` is how it shows up in a
// command, a config or a sentence. The random parts come from a seeded generator, so every secret
// is distinct from every other text in a test run and the corpus is the same on every run.

export interface SecretSample {
  name: string;
  secret: string;
  line: string;
}

let seed = 0x5eed;
function random(alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    out += alphabet[(seed >>> 8) % alphabet.length];
  }
  return out;
}
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const HEX = "0123456789abcdef";
const B64 = ALNUM + "+/";
const URLSAFE = ALNUM + "-_";
const an = (n: number) => random(ALNUM, n);
const hex = (n: number) => random(HEX, n);
const b64 = (n: number) => random(B64, n);
const urlsafe = (n: number) => random(URLSAFE, n);
/** A chosen password: words, digits and a symbol, as people make them. */
const password = (symbol = "!") =>
  `${random("bcdfghjkmnpqrstvwxz", 3)}${random("aeiou", 1)}${random("bcdfghjkmnpqrstvwxz", 2)}${random("0123456789", 3)}${symbol}${random("ABCDEFGHJKLMNPQRSTUVWXYZ", 2)}${random("aeiou", 1)}`;
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;

type Make = (s: string) => string;
const samples: [string, string, Make][] = [];
const add = (name: string, secret: string, line: Make) => samples.push([name, secret, line]);

// Tokens with a recognisable prefix.
add("github classic token", `ghp_${an(36)}`, (s) => `export GITHUB_TOKEN=${s}`);
add("github oauth token", `gho_${an(36)}`, (s) => `gh auth status shows token ${s}`);
add("github server token", `ghs_${an(36)}`, (s) => `git -c http.extraheader="AUTHORIZATION: basic ${s}" fetch`);
add("github user token", `ghu_${an(36)}`, (s) => `echo ${s} | gh auth login --with-token`);
add("github fine-grained pat", `github_pat_11${random(UPPER_DIGITS, 20)}_${an(59)}`, (s) => `gh api user -H "Authorization: token ${s}"`);
add("gitlab pat", `glpat-${urlsafe(20)}`, (s) => `curl --header "PRIVATE-TOKEN: ${s}" https://gitlab.example.com/api/v4/projects`);
add("gitlab deploy token", `gldt-${urlsafe(20)}`, (s) => `git clone https://deploy:${s}@gitlab.example.com/team/app.git`);
add("npm token", `npm_${an(36)}`, (s) => `npm config set //registry.npmjs.org/:_authToken ${s}`);
add("npmrc legacy token", uuid(), (s) => `//registry.npmjs.org/:_authToken=${s}`);
add("pypi token", `pypi-AgEIcHlwaS5vcmc${urlsafe(60)}`, (s) => `twine upload -u __token__ -p ${s} dist/*`);
add("stripe live secret", `sk_live_${an(24)}`, (s) => `stripe.api_key = "${s}"`);
add("stripe restricted", `rk_live_${an(24)}`, (s) => `STRIPE_RESTRICTED=${s} ./sync.sh`);
add("stripe test secret", `sk_test_${an(24)}`, (s) => `curl https://api.stripe.com/v1/charges -u ${s}:`);
add("stripe webhook secret", `whsec_${an(32)}`, (s) => `stripe listen --forward-to localhost:4242 # Ready! signing secret is ${s}`);
add("google api key", `AIza${urlsafe(35)}`, (s) => `const firebaseConfig = { apiKey: "${s}" };`);
add("google oauth client secret", `GOCSPX-${urlsafe(28)}`, (s) => `client_secret=${s}`);
add("google access token", `ya29.a0${urlsafe(60)}`, (s) => `gcloud auth print-access-token -> ${s}`);
add("openai key", `sk-${an(20)}T3BlbkFJ${an(20)}`, (s) => `OPENAI_API_KEY=${s} python agent.py`);
add("openai project key", `sk-proj-${urlsafe(48)}`, (s) => `client = OpenAI(api_key="${s}")`);
add("anthropic key", `sk-ant-api03-${urlsafe(80)}AA`, (s) => `x-api-key: ${s}`);
add("aws access key id", `AKIA${random(UPPER_DIGITS, 16)}`, (s) => `aws configure set aws_access_key_id ${s}`);
add("aws temporary key id", `ASIA${random(UPPER_DIGITS, 16)}`, (s) => `"AccessKeyId": "${s}",`);
add("aws secret key (ini)", b64(40), (s) => `aws_secret_access_key = ${s}`);
add("aws secret key (env)", b64(40), (s) => `export AWS_SECRET_ACCESS_KEY=${s}`);
add("aws session token", `IQoJb3JpZ2luX2Vj${b64(120)}`, (s) => `AWS_SESSION_TOKEN="${s}"`);
add("slack bot token", `xoxb-${random("0123456789", 12)}-${random("0123456789", 13)}-${an(24)}`, (s) => `SLACK_BOT=${s} node bot.js`);
add("slack user token", `xoxp-${random("0123456789", 12)}-${random("0123456789", 12)}-${hex(32)}`, (s) => `curl -d token=${s} https://slack.com/api/auth.test`);
add("slack app token", `xapp-1-A${random(UPPER_DIGITS, 10)}-${random("0123456789", 13)}-${hex(64)}`, (s) => `app_token: ${s}`);
add(
  "slack webhook",
  `T${random(UPPER_DIGITS, 8)}/B${random(UPPER_DIGITS, 10)}/${an(24)}`,
  (s) => `curl -X POST -d '{"text":"done"}' https://hooks.slack.com/services/${s}`,
);
add("discord webhook", `${random("0123456789", 18)}/${urlsafe(68)}`, (s) => `WEBHOOK=https://discord.com/api/webhooks/${s}`);
add("discord bot token", `MT${an(24)}.${urlsafe(6)}.${urlsafe(38)}`, (s) => `client.login("${s}")`);
add("telegram bot token", `${random("123456789", 10)}:AA${urlsafe(33)}`, (s) => `curl https://api.telegram.org/bot${s}/getMe`);
add("jwt", `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${urlsafe(40)}.${urlsafe(43)}`, (s) => `Cookie: session=${s}`);
add("sendgrid key", `SG.${urlsafe(22)}.${urlsafe(43)}`, (s) => `sendgrid.setApiKey('${s}')`);
add("azure storage account key", `${b64(86)}==`, (s) => `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${s};EndpointSuffix=core.windows.net`);
add("azure sas signature", `${b64(40)}%3D`, (s) => `https://acme.blob.core.windows.net/c/x.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01&sig=${s}`);
add("azure service bus key", `${b64(43)}=`, (s) => `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${s}`);
add("redis url password", password("#"), (s) => `redis-cli -u redis://:${s}@cache.internal:6379/0 ping`);
add("postgres url password", password("!"), (s) => `psql postgres://app:${s}@db.internal:5432/app`);
add("mongodb url password", password("%"), (s) => `MONGO_URL=mongodb+srv://admin:${s}@cluster0.abcde.mongodb.net/test`);
add("amqp url password", password("*"), (s) => `amqp://guest:${s}@rabbit.internal:5672/`);
add("url password ending in !", password("!") + "!", (s) => `please remember the staging db is mysql://deploy:${s}@10.0.0.5/app and use it`);
add("git credentials in url", `ghp_${an(36)}`, (s) => `git remote set-url origin https://x-access-token:${s}@github.com/acme/app.git`);
add("mysql -p", password("^"), (s) => `mysql -u root -p${s} -h db.internal app`);
add("mysql --password", password("+"), (s) => `mysql --user=app --password=${s} app < dump.sql`);
add("mysqldump -p quoted", password("&"), (s) => `mysqldump -u root -p'${s}' --all-databases > all.sql`);
add("sshpass", password("@"), (s) => `sshpass -p '${s}' ssh deploy@build-01 uptime`);
add("echo | --password-stdin", password("="), (s) => `echo '${s}' | docker login registry.example.com -u ci --password-stdin`);
add("printf | --password-stdin", password("!"), (s) => `printf '%s\\n' ${s} | helm registry login oci.example.com -u ci --password-stdin`);
add("here-string to --password-stdin", password("#"), (s) => `docker login -u ci --password-stdin registry.example.com <<< '${s}'`);
add("echo | passwd --stdin", password("@"), (s) => `echo '${s}' | sudo passwd --stdin deploy`);
add("docker login -p", password("="), (s) => `docker login -u ci -p ${s} registry.example.com`);
add("docker login --password", `dckr_pat_${urlsafe(27)}`, (s) => `docker login --username ci --password ${s}`);
add("pgpassword env", password("~"), (s) => `PGPASSWORD=${s} pg_dump -h db app`);
add("*_PASS env", password("!"), (s) => `DB_PASS=${s}`);
add("*_PASSWORD export", password("?"), (s) => `export SMTP_PASSWORD=${s}`);
add("*_PASSPHRASE env", password("%"), (s) => `GPG_PASSPHRASE="${s}" make release`);
add("*_SECRET env", an(40), (s) => `API_SECRET=${s}`);
add("*_KEY env", an(32), (s) => `STRIPE_KEY=${s} npm start`);
add("*_TOKEN in docker run", an(32), (s) => `docker run -e SENTRY_AUTH_TOKEN=${s} builder`);
add("yaml password", password("!"), (s) => `  password: ${s}`);
add("yaml quoted password", password("#"), (s) => `db_password: "${s}"`);
add("json password", password("$"), (s) => `{"username": "admin", "password": "${s}"}`);
add("json client secret", urlsafe(40), (s) => `  "client_secret": "${s}",`);
add("toml api key", an(40), (s) => `api_key = "${s}"`);
add("ini password", password("!"), (s) => `password = ${s}`);
add("my password is", password("!"), (s) => `remember that my password is ${s} for the staging box`);
add("password after a comma", password("="), (s) => `registry user is ci-edge, password ${s}`);
add("our passphrase is", password("#"), (s) => `Keep in mind: our wifi passphrase is ${s}.`);
add("bearer header", urlsafe(48), (s) => `curl -H "Authorization: Bearer ${s}" https://api.example.com/v1/me`);
add("basic header", b64(32) + "==", (s) => `Authorization: Basic ${s}`);
add("token header", hex(40), (s) => `-H 'Authorization: Token ${s}'`);
add("curl -u", password("!"), (s) => `curl -u admin:${s} https://jenkins.internal/api/json`);
add("curl --user", password("#"), (s) => `curl --user "ci:${s}" https://nexus.internal/service/rest`);
add("wget --password", password("@"), (s) => `wget --user=ci --password=${s} https://files.internal/build.tar`);
add("--api-key flag", an(32), (s) => `heroku-cli --api-key ${s} apps`);
add("--token flag", hex(40), (s) => `vault login --token=${s}`);
add("rsa private key", b64(64), (s) => `-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA${b64(48)}\n${s}\n${b64(64)}\n-----END RSA PRIVATE KEY-----`);
add(
  "openssh private key",
  b64(70),
  (s) =>
    `cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n${s}\n-----END OPENSSH PRIVATE KEY-----`,
);
add(
  "ec private key in json",
  b64(64),
  (s) =>
    `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\\n${s}\\n-----END PRIVATE KEY-----\\n"}`,
);
add("pgp private key", b64(64), (s) => `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF${b64(40)}\n${s}\n-----END PGP PRIVATE KEY BLOCK-----`);
add("private key cut off", b64(64), (s) => `-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI${b64(40)}\n${s}`);
add("heroku token", `HRKU-${urlsafe(60)}`, (s) => `heroku authorizations:create -> ${s}`);
add("heroku api key", uuid(), (s) => `HEROKU_API_KEY=${s} git push heroku main`);
add("twilio api key", `SK${hex(32)}`, (s) => `twilio login --api-key ${s}`);
add("twilio auth token", hex(32), (s) => `TWILIO_AUTH_TOKEN=${s}`);
add("mailgun key", `key-${hex(32)}`, (s) => `curl -s --user 'api:${s}' https://api.mailgun.net/v3/mg.example.com/messages`);
add("mailchimp key", `${hex(32)}-us6`, (s) => `mailchimp.setConfig({ apiKey: "${s}", server: "us6" })`);
add("digitalocean token", `dop_v1_${hex(64)}`, (s) => `doctl auth init -t ${s}`);
add("vault token", `hvs.${urlsafe(90)}`, (s) => `export VAULT_TOKEN=${s}`);
add("shopify token", `shpat_${hex(32)}`, (s) => `X-Shopify-Access-Token: ${s}`);
add("huggingface token", `hf_${an(34)}`, (s) => `huggingface-cli login --token ${s}`);
add("databricks token", `dapi${hex(32)}`, (s) => `databricks configure --token <<< ${s}`);
add("grafana token", `glsa_${an(32)}_${hex(8)}`, (s) => `grafana-cli --key ${s}`);
add("age secret key", `AGE-SECRET-KEY-1${random(UPPER_DIGITS, 58)}`, (s) => `# created: 2026-01-01\n${s}`);
add("doppler token", `dp.pt.${an(43)}`, (s) => `doppler configure set token ${s}`);
add("atlassian token", `ATATT3xFfGF0${urlsafe(180)}`, (s) => `jira login --token ${s}`);
add("sentry token", `sntrys_${an(40)}${b64(20)}`, (s) => `sentry-cli --auth-token ${s} releases new 1.0`);
add("linear key", `lin_api_${an(40)}`, (s) => `linear-cli auth ${s}`);
add("groq key", `gsk_${an(52)}`, (s) => `GROQ=${s}`);
add("square token", `sq0atp-${urlsafe(22)}`, (s) => `square.accessToken("${s}")`);
add("new relic key", `NRAK-${random(UPPER_DIGITS, 27)}`, (s) => `newrelic profile add --apiKey ${s}`);
add("notion token", `ntn_${an(46)}`, (s) => `notion = Client(auth="${s}")`);
add("facebook token", `EAA${an(120)}`, (s) => `graph.facebook.com/me?access_token=${s}`);
add("terraform token", `${an(14)}.atlasv1.${urlsafe(67)}`, (s) => `credentials "app.terraform.io" { token = "${s}" }`);
add("postgres env in compose", password("!"), (s) => `      - POSTGRES_PASSWORD=${s}`);
add("sshpass env", password("#"), (s) => `SSHPASS=${s} sshpass -e ssh build`);
add("json apiKey", an(40), (s) => `{"apiKey": "${s}", "region": "eu"}`);
add("x-api-key header", urlsafe(40), (s) => `curl -H "X-Api-Key: ${s}" https://api.example.com`);
add("rails secret key base", hex(128), (s) => `SECRET_KEY_BASE=${s} rails s`);
add("password with !", password("!") + "!", (s) => `export ADMIN_PASSWORD='${s}'`);
add(".netrc password", password("!"), (s) => `machine api.heroku.com login ci@example.com password ${s}`);
add("sudo -S", password("#"), (s) => `echo '${s}' | sudo -S apt-get install -y libssl-dev`);
add("redis-cli -a", password("%"), (s) => `redis-cli -h cache.internal -a ${s} ping`);
add("ldapsearch -w", password("*"), (s) => `ldapsearch -x -D cn=admin,dc=example,dc=org -w ${s} -b dc=example,dc=org`);
add("openssl -passin", password("+"), (s) => `openssl rsa -in key.pem -passin pass:${s} -out plain.pem`);
add("gh secret set --body", an(40), (s) => `gh secret set DEPLOY_KEY --body "${s}"`);
add("cookie header", `s%3A${urlsafe(40)}.${b64(30)}`, (s) => `curl -H 'Cookie: connect.sid=${s}' https://app.internal/admin`);
add("token as url user", an(40), (s) => `git clone https://${s}@github.com/acme/private.git`);
add("tailscale key", `tskey-auth-k${an(16)}-${an(30)}`, (s) => `tailscale up --authkey=${s}`);
add("fly token", `FlyV1 fm2_${b64(80)}`, (s) => `FLY_API_TOKEN="${s}" flyctl deploy`);
add("pulumi token", `pul-${hex(40)}`, (s) => `pulumi login --token ${s}`);
add("langsmith key", `lsv2_pt_${hex(32)}_${hex(10)}`, (s) => `export LANGCHAIN_TRACING=1 LANGSMITH_KEY=${s}`);
add("pinecone key", `pcsk_${an(10)}_${an(60)}`, (s) => `pc = Pinecone(api_key="${s}")`);
add("dropbox token", `sl.${urlsafe(140)}`, (s) => `dbxcli --token ${s} ls`);
add("short pw assignment", password("!"), (s) => `DB_PW=${s}`);
add("aws presigned signature", hex(64), (s) => `https://b.s3.amazonaws.com/x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${s}`);
add("openrouter key", `sk-or-v1-${hex(64)}`, (s) => `OPENROUTER=${s} aider`);
// Issue 22: a key cut off before END on one long line, a prefix glued to a word, a bot token not starting M, N or O.
add("private key cut off, one long line", b64(256), (s) => `"key": "-----BEGIN PRIVATE KEY-----\\r\\n${s}`);
add("token glued to a word", `ghp_${an(36)}`, (s) => `token=bearer${s}`);
add("bot token of three parts", `Q${an(25)}.${urlsafe(6)}.${urlsafe(38)}`, (s) => `bot.run("${s}")`);

export const SECRET_SAMPLES: SecretSample[] = samples.map(([name, secret, line]) => ({ name, secret, line: line(secret) }));

/**
 * Text that looks a little like a secret but is none: what lessons legitimately say. None of it may
 * be masked or reported.
 */
export const NOT_SECRETS = [
  "export AWS_PROFILE=dev",
  "export AWS_DEFAULT_REGION=eu-west-1",
  "Set `password=` in the config file, then run the tool.",
  "The password: enter it when the prompt asks.",
  "pass the token with `--token <token>`",
  "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
  "export GITHUB_TOKEN=$TOKEN",
  'curl -H "Authorization: Bearer $TOKEN" https://api.example.com',
  "curl -H 'Authorization: Bearer <token>' https://api.example.com",
  "password: xxx",
  "API_KEY=****",
  "DB_PASSWORD=changeme",
  "API_KEY=your-api-key",
  "SECRET=YOUR_SECRET_HERE",
  "postgres://user:password@localhost:5432/app",
  "postgres://$PGUSER:$PGPASSWORD@db/app",
  "redis://localhost:6379/0",
  "http://localhost:8080/path?x=1",
  "max_tokens=4096",
  "token_count: 12",
  "tokens: 2048",
  "ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519",
  "SSH_KEY=~/.ssh/id_rsa",
  "GIT_SSH_KEY_FILE=/etc/ci/deploy_key",
  "docker login -u ci --password-stdin registry.example.com",
  "mysql -u root -p app",
  'sshpass -p "$SSHPASS" ssh build',
  "the password is stored in the keychain",
  "the password reset flow sends a link",
  "echo $CR_PAT | docker login ghcr.io -u me --password-stdin",
  'docker login -u ci --password-stdin registry.example.com <<< "$CR_PAT"',
  "Use Bearer authentication for the API.",
  "primary_key: id",
  "password = getpass.getpass()",
  'token = os.environ["GITHUB_TOKEN"]',
  "const token = await getToken();",
  "secretKeyRef:",
  "-----BEGIN PUBLIC KEY-----",
  "docker run -u 1000:1000 builder",
  'curl -u "$USER:$PASS" https://example.com',
  "AKIAXXXXXXXXXXXXXXXX",
  "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
  "xoxb-your-token-here",
  "sk-...",
  "token: ${VAULT_TOKEN}",
  "password: {{ .Values.password }}",
  "key: value",
  "use the keyring: `secret-tool lookup service x`",
  "git config credential.helper store",
  "npm whoami --registry https://registry.npmjs.org/",
  "The API key is set in settings.",
  "TOKEN_FILE=/run/secrets/token",
  "VAULT_ADDR=https://vault.internal:8200",
  "-p 8080:80",
  "pass-through mode is the default",
  "the token expires after 1h; refresh it with `gh auth refresh`",
  "export HISTCONTROL=ignorespace",
  "--password-file=/etc/app/pw",
  "sort_key=name",
  "commit 3f9a1c0d2e4b5a6978 and uuid 01a228b6-33db-7556-b4bf-cceeee9f76d3",
  "Password:",
  'echo "$PASSWORD" | sudo -S make install',
  "Set-Cookie: theme=dark; Path=/",
  "machine github.com login ci password $GITHUB_TOKEN",
  "redis-cli -a $REDIS_PASSWORD ping",
  "git clone https://github.com/acme/app.git",
  "signature: required",
  "the pw is in the vault",
  "version 1.14.3.2, then 2.0.0-rc.1",
  "thresholds_highs_and_lows_for_the_quarter_2024",
  "SomeVeryLongClassName.method.anotherVeryLongMethodName",
  "an example header: -----BEGIN PRIVATE KEY----- marks where the key starts",
  "task-9f8e7d6c5b4a3f2e1d0c on disk-0a1b2c3d4e5f6a7b8c9d",
];
