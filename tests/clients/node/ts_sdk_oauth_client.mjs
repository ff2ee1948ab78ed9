// Drive the official TypeScript SDK's client with OAuth (an authProvider on
// StreamableHTTPClientTransport) from the bare endpoint URL: the SDK discovers, registers and
// sends the user to the authorization URL, which this script prints as one JSON line
// ({"authorize": URL}) for the test to play the browser; the test answers with one line
// ({"code": CODE}); the script finishes the authorization, connects again, calls the plan's
// tool and prints the report ({"result": ..., "tokens": {...}}) as one JSON line.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const next = async () => JSON.parse((await lines.next()).value);
const plan = await next();

const state = { tokens: undefined, client: undefined, verifier: undefined, authorize: undefined };
const provider = {
  get redirectUrl() { return plan.redirect_uri; },
  get clientMetadata() {
    return { client_name: "TypeScript SDK test client", redirect_uris: [plan.redirect_uri],
             grant_types: ["authorization_code", "refresh_token"], response_types: ["code"],
             token_endpoint_auth_method: "none" };
  },
  clientInformation: () => state.client,
  saveClientInformation: (info) => { state.client = info; },
  tokens: () => state.tokens,
  saveTokens: (tokens) => { state.tokens = tokens; },
  redirectToAuthorization: (url) => { state.authorize = url.toString(); },
  saveCodeVerifier: (verifier) => { state.verifier = verifier; },
  codeVerifier: () => state.verifier,
};

const url = new URL(plan.url);
let transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
let client = new Client({ name: "cloudg-oauth-ts", version: "1" });
try {
  await client.connect(transport);
} catch (error) {
  if (!(error instanceof UnauthorizedError) || !state.authorize) throw error;
  process.stdout.write(JSON.stringify({ authorize: state.authorize }) + "\n");
  const answer = await next();
  await transport.finishAuth(answer.code);
  transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  client = new Client({ name: "cloudg-oauth-ts", version: "1" });
  await client.connect(transport);
}
const result = await client.callTool({ name: plan.tool, arguments: plan.arguments });
await client.close();
process.stdout.write(JSON.stringify({
  result: { data: result.structuredContent ?? null, is_error: Boolean(result.isError) },
  tokens: { access_prefix: state.tokens.access_token.slice(0, 8),
            has_refresh: Boolean(state.tokens.refresh_token) },
}) + "\n");
process.exit(0);
