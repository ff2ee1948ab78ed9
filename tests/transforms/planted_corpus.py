"""A corpus of planted secrets and a registry whose every output surface emits them.

``PLANTED`` maps a label to the secret value that must never reach a caller under the
``standard`` policy (the sensitive part only: for ``postgresql://app:PASSWORD@host`` it is
the password). ``planted_registry()`` places them in strings, nested dicts, lists, dict keys,
error messages and data, resource contents, prompt messages, completion values and resource
links; ``collect_outputs(layer)`` exercises every one of those surfaces through the layer and
returns every string it got back (wire forms, keys included).
"""

from __future__ import annotations

import json
from typing import Any

from cloudg_nb import (
    CloudGMCPLayer,
    EmbeddedResource,
    MCPLayerError,
    PromptArgument,
    PromptMessage,
    Registry,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolResult,
)

RSA_PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "ULyfgy3f7Tw7SUpHpyBCq+cfRHw6Odg2MzwLim8w3yEroi25dtx972Pb4+Fa4S+S\n"
    "Q5uCk/n3AHkoETU+n9HcyCDBFHmdH7jO8hQ1aF+0vjBUvCUYK3XQGPoXs6jTXllu\n"
    "-----END RSA PRIVATE KEY-----"
)
PKCS8_BODY = "3z6zWhGmb2y8/z1ps+2Od6xnJN0at6S6pineDWOeYazP20inUEDy+0EJbKXu6TEZ"
GCP_KEY_ID = "ef4f840f3a301267ab346cba0789dc5671a1f3cc"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwbGFudGVkLXVzZXIiLCJpYXQiOjE3MDAwMDAwMDB9"
    ".XpKW3CcO-RsE8ac_AAwMMe-HsTDkBUqJfVbYcrT84iM"
)

PLANTED: dict[str, str] = {
    "aws_access_key_id": "AKIAHBRPOIG8F1CBFNO6",
    "aws_secret_access_key": "dz1C5Jau2RJtBRnlWmTSHf6pWkLUyifDLkDmWJ6U",
    "rsa_private_key": RSA_PEM,
    "gcp_private_key_body": PKCS8_BODY,
    "gcp_private_key_id": GCP_KEY_ID,
    "jwt": JWT,
    "github_token_as_key": "ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ",
    "github_token_in_link": "ghp_uzren68K4TunPFz46PDjqipVJIqVLB5Lzxoi",
    "slack_bot_token": "xoxb-2048-1234567890-PlAnTeDsLaCkToKeN42",
    "slack_webhook": "T0PLANTED1/B0PLANTED2/PlantedWebhookSecret42x",
    "user_data_password": "Us3rD4ta-Planted-Pw!",
    "db_connection_password": "Zq8-Planted-DbPass-41",
    "url_credentials_password": "Url-Cred-Planted-9931",
    "authorization_basic": "ZGVwbG95OnBsYW50ZWQtYmFzaWMtc2VjcmV0",
    "azure_storage_key": (
        "qFBwgt8NV37Y1kUXivB6wZXRDwyWPXHcNfcRHN+bICfETaCggZT0KIy2xcpUBDSu6KwSbDRDrpgQWkMQRRyAYg=="
    ),
    "high_entropy_tag": "tzQPxC5HChpoevbLJoLoaeTOdoe5c3ve",
    "google_api_key": "AIzaW7GboIRoL3u6aHwnMztVuaP_coUNEhEkk_i",
    "stripe_key": "sk_live_WIXiiQE8JkqH3MB9n7IWUSmT",
    "error_message_password": "Err-Planted-Pass-7781",
    "bearer_in_link": "PlantedBearerTok3nXYZ12345678",
    "tag_pair_password": "TagPair-Planted-Secret-55",
}

KINDS = {
    "aws_access_key_id", "aws_secret_access_key", "private_key", "jwt", "github_token",
    "slack_token", "password", "connection_string", "url_credentials", "authorization",
    "azure_storage_key", "gcp_service_account_key", "high_entropy", "google_api_key",
    "stripe_key", "bearer_token",
}

P = PLANTED
DSN = f"postgresql://app:{P['db_connection_password']}@db.internal:5432/app"
REPO_URL = f"https://deploy:{P['url_credentials_password']}@git.example.com/estate.git"
AZURE_CONN = (
    "DefaultEndpointsProtocol=https;AccountName=plantedacct;"
    f"AccountKey={P['azure_storage_key']};EndpointSuffix=core.windows.net"
)
GCP_SA_JSON = json.dumps({
    "type": "service_account",
    "project_id": "planted-project",
    "private_key_id": GCP_KEY_ID,
    "private_key": f"-----BEGIN PRIVATE KEY-----\n{PKCS8_BODY}\n-----END PRIVATE KEY-----\n",
    "client_email": "loader@planted-project.iam.gserviceaccount.com",
})
AWS_CREDENTIALS_FILE = (
    "[default]\n"
    f"aws_access_key_id = {P['aws_access_key_id']}\n"
    f"aws_secret_access_key = {P['aws_secret_access_key']}\n"
    "region = eu-west-1\n"
)
USER_DATA = (
    "#!/bin/bash\n"
    f"export DB_PASSWORD='{P['user_data_password']}'\n"
    "systemctl start app\n"
)


def planted_registry() -> Registry:
    reg = Registry()

    @reg.tool
    def inventory(ctx) -> dict:
        """Plain result: secrets in strings, nested dicts, lists, keys, tags and a link."""
        ctx.link(REPO_URL, "estate-repo", description=f"clone with Bearer {P['bearer_in_link']}")
        return {
            "assets": [
                {
                    "id": "arn:aws:ec2:eu-west-1:123456789012:instance/i-0123456789abcdef0",
                    "name": "web-01",
                    "user_data": USER_DATA,
                    "tags": {
                        "storage": AZURE_CONN,
                        "deploy_ref": P["high_entropy_tag"],
                        "owner": "platform-team",
                    },
                    "Tags": [
                        {"Key": "db_password", "Value": P["tag_pair_password"]},
                        {"Key": "env", "Value": "prod"},
                    ],
                    "notes": [
                        f"rotated key {P['aws_access_key_id']} yesterday",
                        {"certificate_bundle": {"pem": RSA_PEM}},
                    ],
                },
            ],
            P["github_token_as_key"]: "token owner: ci-bot",
        }

    @reg.tool
    def handler_built(ctx) -> ToolResult:
        """Handler-built result: text blocks, a link, an embedded resource, structured, meta."""
        return ToolResult(
            content=[
                TextContent(f"alerts go to https://hooks.slack.com/services/{P['slack_webhook']}"),
                ResourceLink(
                    uri="test://tokens", name="tokens",
                    description=f"see {P['github_token_in_link']}",
                ),
                EmbeddedResource(TextResourceContents("test://sa", GCP_SA_JSON, "text/plain")),
            ],
            structured={"service_account": GCP_SA_JSON, "session": {"jwt": JWT}},
            meta={"debug": {"slack": P["slack_bot_token"]}},
        )

    @reg.tool
    def failing(ctx) -> dict:
        """An unexpected exception whose message carries a connection string: the model gets a
        fixed message with an error id, the detail goes to the server log."""
        raise RuntimeError(f"cannot connect to {DSN}")

    @reg.tool
    def refusing(ctx) -> dict:
        """A layer error with a secret in its message and in its data."""
        raise MCPLayerError(
            f"login failed: password={P['error_message_password']}",
            data={
                "request": {"headers": {"Authorization": f"Basic {P['authorization_basic']}"}},
                "hint": f"retry with token {JWT}",
                "connection": DSN,
            },
        )

    @reg.resource("test://credentials", mime_type="text/plain")
    def credentials_file(ctx) -> str:
        return AWS_CREDENTIALS_FILE

    @reg.resource("test://settings")
    def settings(ctx) -> dict:
        return {"billing": [{"provider": "stripe", "api": P["stripe_key"]}]}

    @reg.resource("test://bundle")
    def bundle(ctx) -> list:
        return [TextResourceContents("test://bundle", f"maps key {P['google_api_key']}")]

    def names(ctx, partial: str) -> list[str]:
        return [P["slack_bot_token"], f"{partial}-ok"]

    @reg.resource_template("test://items/{name}", completions={"name": names})
    def item(ctx, name: str) -> dict:
        return {"name": name, "maps_key": P["google_api_key"]}

    def topics(ctx, partial: str) -> list[str]:
        return [P["stripe_key"], JWT]

    @reg.prompt(arguments=[PromptArgument("topic", completion=topics)])
    def briefing(ctx, topic: str = "estate") -> list:
        return [
            PromptMessage("user", TextContent(f"Use the session {JWT} for {topic}")),
            PromptMessage(
                "user", EmbeddedResource(TextResourceContents("test://pem", RSA_PEM, "text/plain"))
            ),
            PromptMessage("assistant", ResourceLink(uri=REPO_URL, name="repo")),
        ]

    return reg


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(str(k))
            _strings(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _strings(v, out)
    elif value is not None:
        out.append(str(value))


async def collect_outputs(layer: CloudGMCPLayer) -> dict[str, list[str]]:
    """Every string each surface returned, by surface name (wire forms, keys included)."""
    surfaces: dict[str, Any] = {}
    plain = await layer.call_tool("inventory")
    surfaces["tool text"] = plain.text
    surfaces["structuredContent"] = plain.structured
    surfaces["resource links (ctx.link)"] = [c.to_wire() for c in plain.content[1:]]
    surfaces["tool _meta"] = plain.meta
    built = (await layer.call_tool("handler_built")).to_wire()
    surfaces["handler-built content"] = built["content"]
    surfaces["handler-built structuredContent"] = built.get("structuredContent")
    surfaces["handler-built _meta"] = built.get("_meta")
    failed = (await layer.call_tool("failing")).to_wire()
    surfaces["exception error result"] = failed
    refused = (await layer.call_tool("refusing")).to_wire()
    surfaces["error message"] = refused["content"]
    surfaces["error data"] = refused.get("_meta", {}).get("cloudg/error_data")
    for uri in ("test://credentials", "test://settings", "test://bundle", "test://items/x"):
        surfaces[f"resource {uri}"] = [c.to_wire() for c in await layer.read_resource(uri)]
    surfaces["prompt messages"] = (await layer.get_prompt("briefing", {"topic": "q3"})).to_wire()
    surfaces["completion (template)"] = await layer.complete(
        {"type": "ref/resource", "uri": "test://items/{name}"}, {"name": "name", "value": "a"}
    )
    surfaces["completion (prompt)"] = await layer.complete(
        {"type": "ref/prompt", "name": "briefing"}, {"name": "topic", "value": "s"}
    )
    out: dict[str, list[str]] = {}
    for name, value in surfaces.items():
        strings: list[str] = []
        _strings(value, strings)
        strings.append(json.dumps(value, ensure_ascii=False, default=str))
        out[name] = strings
    return out


def leaks(outputs: dict[str, list[str]], window: int = 12) -> list[tuple[str, str]]:
    """(planted label, surface) for every planted value with a ``window``-long piece in it."""
    found = []
    for surface, strings in outputs.items():
        hay = "\x00".join(strings)
        for label, secret in PLANTED.items():
            pieces = {secret[i:i + window] for i in range(len(secret) - window + 1)}
            if any(p in hay for p in pieces):
                found.append((label, surface))
    return found
