// A real OpenID provider (npm's oidc-provider) for trainboard's single sign-on tests.
// Usage: node provider.mjs CONFIG.json; it prints "listening" once it answers. CONFIG: {issuer, port, clients,
// accounts: {login: claims}, id_token_seconds}. Any password signs an account in (the provider's dev login form). The
// accounts are read again at each sign-in: a test changes a user's claims (their groups) by rewriting CONFIG.
// A client whose `mischief` is "audience" or "issuer" receives ID tokens signed with the provider's own key but naming
// another audience or issuer: what a relying party must refuse.
import { readFileSync } from "node:fs";
import { generateKeyPair, exportJWK, SignJWT, decodeJwt, decodeProtectedHeader, importJWK } from "jose";
import Provider from "oidc-provider";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const { privateKey } = await generateKeyPair("RS256", { extractable: true });
const signingKey = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256", use: "sig" };

const provider = new Provider(config.issuer, {
  clients: config.clients.map(({ mischief, ...client }) => client),
  jwks: { keys: [signingKey] },
  cookies: { keys: ["trainboard-test-cookies"] },
  claims: { openid: ["sub"], email: ["email", "email_verified"], groups: ["groups"] },
  scopes: ["openid", "email", "groups", "offline_access"],
  // Claims go in the ID token even though an access token is issued too.
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  ttl: { IdToken: config.id_token_seconds ?? 3600 },
  findAccount: async (ctx, id) => {
    const claims = JSON.parse(readFileSync(process.argv[2], "utf8")).accounts[id];
    if (!claims) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, ...claims }) };
  },
  // First-party clients: consent is given without asking.
  loadExistingGrant: async (ctx) => {
    const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope("openid email groups");
    await grant.save();
    return grant;
  },
});

const mischief = Object.fromEntries(config.clients.filter((c) => c.mischief).map((c) => [c.client_id, c.mischief]));
const key = await importJWK(signingKey, "RS256");
provider.use(async (ctx, next) => {
  await next();
  if (ctx.path !== "/token" || !ctx.body || typeof ctx.body !== "object" || !ctx.body.id_token) return;
  const claims = decodeJwt(ctx.body.id_token);
  const wrong = mischief[claims.aud];
  if (!wrong) return;
  if (wrong === "audience") claims.aud = "another-client";
  if (wrong === "issuer") claims.iss = "http://issuer.invalid";
  const header = decodeProtectedHeader(ctx.body.id_token);
  ctx.body = { ...ctx.body, id_token: await new SignJWT(claims).setProtectedHeader(header).sign(key) };
});

provider.listen(config.port, config.host ?? "127.0.0.1", () => console.log("listening"));
