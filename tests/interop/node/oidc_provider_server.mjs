// oidc-provider (https://github.com/panva/node-oidc-provider), a certified OpenID provider, as the
// authorization server of an MCP server, for tests/interop/test_oidc_provider.py.
//
//     node oidc_provider_server.mjs PORT RESOURCE
//
// Listens on 127.0.0.1:PORT (issuer http://127.0.0.1:PORT). Dynamic registration, PKCE, resource
// indicators with JWT access tokens for RESOURCE (audience RESOURCE, signed ES256, JWKS at /jwks),
// refresh tokens, DPoP with nonces required (RFC 9449), iss in authorization responses (RFC 9207),
// the client credentials grant for the pre-registered client "svc" / "svc-secret". The person is
// played by /interaction/:uid, which logs "user-1" in and consents to what was asked, at once.

import crypto from "node:crypto";
import http from "node:http";

import Provider from "oidc-provider";

const [port, resource] = [Number(process.argv[2]), process.argv[3]];
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
const signingKey = { ...privateKey.export({ format: "jwk" }), alg: "ES256", use: "sig", kid: "es256" };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: "svc",
      client_secret: "svc-secret",
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_basic",
    },
  ],
  jwks: { keys: [signingKey] },
  clientDefaults: { id_token_signed_response_alg: "ES256", grant_types: ["authorization_code", "refresh_token"] },
  scopes: ["openid", "offline_access", "read", "write"],
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    dPoP: { enabled: true, nonceSecret: crypto.randomBytes(32), requireNonce: () => true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
        return { scope: "read write", audience: resource, accessTokenFormat: "jwt", jwt: { sign: { alg: "ES256" } } };
      },
    },
  },
  issueRefreshToken: async (ctx, client, code) => client.grantTypeAllowed("refresh_token"),
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  ttl: { AccessToken: 3600, ClientCredentials: 3600 },
});
provider.proxy = false;

async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === "login") {
    await provider.interactionFinished(req, res, { login: { accountId: "user-1" } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes || {})) {
    grant.addResourceScope(indicator, scopes.join(" "));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
http
  .createServer((req, res) => {
    if (req.url.startsWith("/interaction/")) {
      interaction(req, res).catch((error) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    callback(req, res);
  })
  .listen(port, "127.0.0.1", () => console.error(`listening on ${issuer}`));
