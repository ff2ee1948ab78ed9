// Drive the official TypeScript SDK's client (Client + StreamableHTTPClientTransport, the
// credential in requestInit.headers): list the tools, make the plan's read, progress (onprogress)
// and error calls. Reads the plan as JSON on stdin, prints the report as one JSON line on stdout,
// as the Python drivers in ../python/ do (see driver.py there).
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const PACKAGE = "@modelcontextprotocol/sdk";
const plan = JSON.parse(readFileSync(0, "utf8"));
const installed = JSON.parse(
  readFileSync(new URL(`./node_modules/${PACKAGE}/package.json`, import.meta.url), "utf8"));
const transport = new StreamableHTTPClientTransport(new URL(plan.url), {
  requestInit: { headers: { Authorization: `Bearer ${plan.token}` } },
});
const client = new Client({ name: "cloudg-compatibility", version: "1" });
const textOf = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join(" ");

await client.connect(transport);
const listed = await client.listTools();
const read = await client.callTool({ name: plan.read.tool, arguments: plan.read.arguments });
const seen = [];
const slow = await client.callTool(
  { name: plan.progress.tool, arguments: plan.progress.arguments }, undefined,
  { onprogress: (p) => seen.push([p.progress, p.total ?? null, p.message ?? null]) });
const failed = await client.callTool({ name: plan.error.tool, arguments: plan.error.arguments });
const protocol = transport.protocolVersion ?? null;
await client.close();

process.stdout.write(JSON.stringify({
  package: PACKAGE,
  version: installed.version,
  protocol,
  tools: listed.tools.map((tool) => tool.name),
  read: { data: read.structuredContent ?? null, is_error: Boolean(read.isError) },
  progress: { data: slow.structuredContent ?? null, notifications: seen },
  error: { surfaced_as: failed.isError ? "isError result" : "a plain result", message: textOf(failed) },
}) + "\n");
