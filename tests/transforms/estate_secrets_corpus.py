"""Secrets planted in a realistic estate file, written from the formats' public documentation
(vendor token formats, CLI manuals, config-file syntaxes), not from our detectors.

``PLANTED`` maps a label to ``(kind, secret, carrier)``: the secret is the sensitive part only
(for ``postgres://app:PW@host`` it is ``PW``), the carrier says where it sits in the estate and
the text around it. ``write_estate(folder)`` writes a ``findings.json`` (assets with tags,
metadata, env lists, CloudFormation parameters, k8s secrets, bootstrap scripts; findings whose
title, description, evidence and remediation carry the rest) for ``load_dataset``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# Carriers: ("tag", key, text) asset tag; ("tagpair", key, text) Key/Value tag list;
# ("env", name, value) container env list; ("cfn", key, value) CloudFormation parameters;
# ("meta", key, text) asset metadata; ("script", text) a bootstrap script in metadata;
# ("title"|"description"|"evidence"|"remediation", text) a finding field.
# "{v}" in a text is the secret.
PLANTED: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # cloud credentials
    "aws_access_key_id": ("aws_access_key_id", "AKIA2IBYYURL7B6KJ6HB",
                          ("evidence", "Access key {v} was used from 203.0.113.9")),
    "aws_secret_access_key": ("aws_secret_access_key", "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",
                              ("script", "[default]\naws_secret_access_key = {v}\n")),
    "aws_session_token": (
        "aws_session_token",
        "FwoGZXIvYXdzED+Cn511CFUBWkNhBm2bd2AG2/B2TFu2aWo/C7VLotddxg7qACPVsOnA66cKIFTmxrrjtjVmd4x"
        "I0zvy4Zr9moEHZhNX2xGqc+fQ7",
        ("script", "export AWS_SESSION_TOKEN={v}\naws s3 ls")),
    "azure_storage_key": (
        "azure_storage_key",
        "XtvEXUVsCUJqEm/HHU04umGpjwYrwyOMLidvKD4W97wfjF4YhRcKKlbuvCrQ0ydZPGmaJ9pRj0wVFK3rNpb6Kf==",
        ("meta", "storage_connection",
         "DefaultEndpointsProtocol=https;AccountName=stbackupsprod;AccountKey={v};"
         "EndpointSuffix=core.windows.net")),
    "azure_sas": ("azure_sas", "r6V6vZudqCPFhZ9QQYrA3kKmOU1SAmG7sF1F7mLHibI%3D",
                  ("evidence", "Public link https://stbackupsprod.blob.core.windows.net/dumps/"
                               "db.bak?sv=2022-11-02&ss=b&srt=o&sp=r&se=2027-01-01&sig={v}")),
    "azure_client_secret": ("azure_client_secret", "Nrj8Q~YNL4ag77HY484czEHx_1_8MSMju-qmC",
                            ("env", "AZURE_CLIENT_SECRET", "{v}")),
    "gcp_private_key_id": ("gcp_service_account_key", "d5df063396f23e06356741a5bfd6d448e34e6ff4",
                           ("evidence", '{{"type": "service_account", "project_id": '
                                        '"acme-analytics", "private_key_id": "{v}"}}')),
    "google_api_key": ("google_api_key", "AIzatNmDrh6zM5YwW-q-NyW3ZncI4O3NbH0XwXC",
                       ("tag", "maps", "{v}")),
    "digitalocean_token": (
        "digitalocean_token",
        "dop_v1_2ee5503674e4931753791d269074d9451ccd1dba7041ae33aaff711271961e13",
        ("description", "Terraform state holds the provider token {v} in clear text.")),
    # source hosting and package registries
    "github_classic_pat": ("github_token", "ghp_Jzk3i8ju6BRoQowFgsH9R1YpX4nVrRtdVlC1",
                           ("tag", "ci", "{v}")),
    "github_oauth": ("github_token", "gho_fDBUiTue7fiPgpoiN4au9KWLFbAzjQ05OI43",
                     ("evidence", "git remote uses {v}")),
    "github_app_installation": ("github_token", "ghs_qHdKCRGD4fc2jDmt9qrnRBBtGaprBPhLERW0",
                                ("env", "GH_INSTALLATION", "{v}")),
    "github_refresh": (
        "github_token",
        "ghr_CbvaQqrpxCCduFxFv3il5Qf5ORrK0tCb27brLe0Vyhlr7HiKRkf3hlrHsOaS0fH5EEg14TIcpoDo",
        ("meta", "oauth_state", "refresh={v}")),
    "github_fine_grained": (
        "github_token",
        "github_pat_1193RZTE7M8GP3MJWNXVAQ_mlCEVlv5L2ug3oIaCfCh95aMwBwJ5ZbDov1w034qOBYoD0hN450"
        "itDEF30u",
        ("remediation", "Revoke {v} at github.com/settings/tokens.")),
    "github_pat_unprefixed_hex": ("named_hex_secret", "a4ea09b80722fab5a938ae06e1b568d845b462b6",
                                  ("env", "GITHUB_PAT", "{v}")),
    "gitlab_pat": ("gitlab_token", "glpat-36jKkv-0GhTnrU_D4J1_", ("tag", "gl", "{v}")),
    "gitlab_runner": ("gitlab_runner_token", "glrt-SJI35KZ8tElDUWsp1gBX",
                      ("script", "gitlab-runner register --url https://gitlab.com "
                                 "--token {v} --executor docker")),
    "npm_token": ("npm_token", "npm_W1aiBulkiUgRPXcuKmsfvwkyaa7ppCzG96S4",
                  ("script", "//registry.npmjs.org/:_authToken={v}")),
    "pypi_token": (
        "pypi_token",
        "pypi-AgEIcHlwaS5vcmcCJ41Riem_I8vnupL9sMeeOwl2hYy5FtBRYoBd3B5574YrPVbPk0zRxoLF_uKCTMnHzX"
        "o_bdQASar24clMzFx_6M2H5wOH_Ta0utBbiVSI0DZLlu_tE_P6osypQ",
        ("meta", "pypirc", "[pypi]\nusername = __token__\npassword = {v}\n")),
    "rubygems": ("rubygems_key", "rubygems_8ea63fb807f1d172bd63ea1d9481fa69015f1e253282ba13",
                 ("tag", "gem", "{v}")),
    "artifactory": (
        "artifactory_key",
        "AKCp8k68QYTrAXyRCzvqxjgpDlDT4eg0L1t42v533qa5mL4pJ1j01TNN2KY8LXUzajrUe7psK",
        ("evidence", "curl -H 'X-JFrog-Art-Api: {v}' https://acme.jfrog.io/artifactory/api")),
    "docker_config_auth": ("docker_auth", "cm9ib3QkY2k6eXZ5WkRkTmRlQ2lwcXRJWnAzMm1HVnRN",
                           ("meta", "dockerconfigjson",
                            '{{"auths": {{"harbor.acme.io": {{"auth": "{v}"}}}}}}')),
    # chat, mail, messaging
    "slack_bot": ("slack_token", "xoxb-19140486644-5873871060190-FTn4wokZ8BWep9ckwAq5HuSG",
                  ("tag", "alerts", "{v}")),
    "slack_user": (
        "slack_token",
        "xoxp-14738601295-544105285625-0163374170291-f51d1c30ea83859dafc1eb0330018387",
        ("evidence", "Slack token {v} found in /etc/motd")),
    "slack_app_level": (
        "slack_app_token",
        "xapp-1-AH03LPG2YV1-0835043298578-a74193304885ee914f149f83b5ae08e9df0b3f13052ba131525fa"
        "27a6abde391",
        ("env", "SLACK_SOCKET", "{v}")),
    "slack_webhook": ("slack_webhook", "TCUSK8QTD/B5ZUONVS938/erMwDz1KVBz8Q1wSNrO1e0bN",
                      ("tag", "notify", "https://hooks.slack.com/services/{v}")),
    "discord_webhook": (
        "discord_webhook",
        "895856858609478369/lmmmJhrgSw7H-T2EJ2JrXiZ9_8GxqQYW60gw3WABfNsNZ-hCfjPYeA_8rpaP5MaPH3-Z",
        ("meta", "alert_target", "https://discord.com/api/webhooks/{v}")),
    "telegram_bot": ("telegram_bot_token", "1458485058:AAL_T7L2nfBKZqNDD4d8HttuHLN9sOL4gj3",
                     ("remediation", "Rotate the bot token {v} with @BotFather.")),
    "twilio_api_key": ("twilio_api_key", "SKe2ecff4615441050c5bf87362df09a5d",
                       ("tag", "sms", "{v}")),
    "twilio_auth_token": ("twilio_auth_token", "7347a5a675c17bab6a01898f97ac27a8",
                          ("env", "TWILIO_AUTH_TOKEN", "{v}")),
    "sendgrid": ("sendgrid_key",
                 "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",
                 ("tag", "mail", "{v}")),
    "mailgun": ("mailgun_key", "key-c813fd521dd77cdcf02347c1f59ff479",
                ("evidence", "curl -s --user 'api:{v}' https://api.mailgun.net/v3/acme.io")),
    "mailchimp": ("mailchimp_key", "045dc1ca731e44dd703db3280e59f722-us14",
                  ("tag", "newsletter", "{v}")),
    # payments, commerce
    "stripe_secret": (
        "stripe_key",
        "sk_live_51hLYoOP2Hez8gcG6VO0T6aEa60jbXjIanttFaymbA5t0BQ09E4qs3GuFMV8IpapLxcADpNjEcTEK"
        "pJTdjjuneImWG7f2uTYKs",
        ("env", "STRIPE", "{v}")),
    "stripe_restricted": (
        "stripe_key",
        "rk_live_51tLLYpoafmMleWVFe48x25f9hVvbVcl1A2ufeV13dNNtMbe7ozHhNNbIA3kGzLtr9MWixrZ19ksQv"
        "80sjCoOwwCYsnNQz0yWg",
        ("title", "Restricted key {v} committed to repository")),
    "shopify": ("shopify_token", "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", ("tag", "shop", "{v}")),
    "square": ("square_token", "EAAAiCxKD6Ty0D16-wJWZrQ5oNbMq3c-N1oJPIoMnC6W3M6zuPjCr05AxdwlxVqC",
               ("meta", "pos_config", "SQUARE_ACCESS_TOKEN: {v}")),
    # observability and SaaS
    "datadog_api_key_cfn": ("datadog_api_key", "b6d971532c8b27383bb10f807e4243cd",
                            ("cfn", "DdApiKey", "{v}")),
    "datadog_api_key_env": ("datadog_api_key", "b8de06ebcfd7a4ddd069b08c0947dacb",
                            ("env", "DD_API_KEY", "{v}")),
    "datadog_app_key": ("datadog_app_key", "0b8eb017c9212ab1861f0dcf92b2c5e0093e1a99",
                        ("tagpair", "DD_APP_KEY", "{v}")),
    "newrelic_license_yaml": ("newrelic_license_key", "d54f44d5eb7be5d17bfc4f6e75bcc05bf159NRAL",
                              ("script", "common: &default\n  license_key: '{v}'\n"
                                         "  app_name: orders\n")),
    "newrelic_user_key": ("newrelic_user_key", "NRAK-VO921N67QLGNNRWAU2UID4LY3UV",
                          ("tag", "nr", "{v}")),
    "license_key_yaml_hex": ("named_hex_secret", "c3f794282b5a7dfb590da3ce90ebaea755624025",
                             ("evidence", "agent.yml:\n  license_key: {v}\n  log_level: info")),
    "sentry_auth": (
        "sentry_token",
        "sntrys_eyJpYXQiOjE3hQ1GQ9usP3nGLoo4aFxCtg7PqzWpserFf35zYGiEk1Qo15Jd56898YRBcAIY_uPcjU9"
        "ASBBALJxsNSFa8ZlpKlSAqV9839DvgWcbnIe5",
        ("tag", "sentry", "{v}")),
    "grafana_sa": ("grafana_token", "glsa_K1WlotnTgsBggXusRrjHLtXKp0Eb7fpd_3fdfdb70",
                   ("tag", "grafana", "{v}")),
    "atlassian": (
        "atlassian_token",
        "ATATT3xFfGF0UbH-l=eM=DW3EkVvk1L5wJ0pg1aCWyJpeNs2Dfn54IFOm9kFxjAAZOhE_Ko5QVsm7PugCe9ZrSy"
        "T40kjOIydSNhF4iFlmn-vlU0w=pwwClwxFhwS7__WZsyGkLy1C-Ju9paHdEIVF4lhCW8tA_6lDAo9Bs-Vo2k4zFa"
        "-9up28tb",
        ("tag", "jira", "{v}")),
    "linear": ("linear_key", "lin_api_XZcXCNWUjixcunelyoaDnyQ5FhDpVThcou4uZQsC",
               ("tag", "linear", "{v}")),
    "notion": ("notion_token", "ntn_iDeDeFFvPKfQJxRJ4gncAU87IFWPwStJIsZtMihz9aQN33",
               ("tag", "wiki", "{v}")),
    "postman": ("postman_key", "PMAK-88400c3a7d87ea117bae46c7-cca88ec2b37f0a53a1ef99d89d1c541f9f",
                ("tag", "api-tests", "{v}")),
    "okta_ssws": ("okta_token", "00wZmtONvTFIfKK7v-TpcZLSgiYPE6VQsNinh0v66_",
                  ("evidence", "Authorization: SSWS {v}")),
    "cloudflare_token": ("cloudflare_token", "209MYYAppUPlRhLiE7rE0AhqXmskfFg03B5PxV1V",
                         ("env", "CF_API_TOKEN", "{v}")),
    "fastly_token": ("fastly_token", "-EyMOHh6aVk-ufO5EJDrsI7QFD5_6NU7",
                     ("script", "fastly service list --token {v}")),
    "heroku_api_key": ("heroku_api_key", "f3d08a74-a6aa-bd1a-338f-e97f8b9f8dea",
                       ("env", "HEROKU_API_KEY", "{v}")),
    "snyk_token": ("snyk_token", "d7ff812c-c4d8-489e-eed9-d86eb4774cd4",
                   ("script", "snyk auth {v}\nsnyk test")),
    "facebook": (
        "facebook_token",
        "EAACEdEose0cBAhHnuMQcd0EZx0WzHo0Z8WHlcqELT3EpIbzHQHKQLDu01EnLiKmzNDiVjDN3lJmfBRQQRMFtu2"
        "Z8Ilk9JXYJFn1kUw6CuOYFKme2n",
        ("tag", "social", "{v}")),
    # AI and data platforms
    "openai": (
        "openai_key",
        "sk-proj-uGYzS-dxSh7X2Iz7YDv1Qot5Bj093Y5B2TqMjdT73qkCC61Rs7gc4nvQDFBxUZRMBs7gckyttdT3Blbk"
        "FJ6-N1aDNAF7bUUAyfOHpdgr7JCJT2GDpmxGAAB5o858txdOk6kX80bXIVk10TVfLlanAWhp1LlD",
        ("tag", "llm", "{v}")),
    "anthropic": (
        "anthropic_key",
        "sk-ant-api03-fZ6kZyyJuExaypXMq83eX0Rk-IAKZ0k3ekL-UYlmOX_Cr0fjRjUzQwh2RQe89G8FqRS_6PfuH6"
        "waexLwjnrRYbJsPIwWyAA",
        ("evidence", "Lambda environment contains {v}")),
    "huggingface": ("huggingface_token", "hf_9LvebUqVuB0wyAH8WxZ8XMhids5ttuc94Z",
                    ("tag", "models", "{v}")),
    "databricks": ("databricks_token", "dapi9dda25505afa7352f22c28368a24b8b8",
                   ("meta", "notebook_params", "--token {v} --host adb-1.azuredatabricks.net")),
    # secret stores and infrastructure tools
    "vault_token": (
        "vault_token",
        "hvs.5Hae2msaPXZi8aU7jaFY-wyZAnrT5gBVo21gRRcuQDdKtq-5MysXkChz08Fxk_J9BGXchGGhB9bVcXoj0W9"
        "wag8TlT",
        ("script", "export VAULT_ADDR=https://vault.acme.io:8200\nvault login {v}")),
    "terraform_cloud": (
        "terraform_cloud_token",
        "c1AJVlf0MvjbB6.atlasv1.iktAhVqLfU68EwtKipt0a7O9iduIWCtMkq0rJQIBCJZqTP68mpETUY6kV22of4dT"
        "bVr",
        ("meta", "terraformrc", 'credentials "app.terraform.io" {{\n  token = "{v}"\n}}')),
    "doppler": ("doppler_token", "dp.st.prd.jqlQUInehmnjRxkrqAfSHJwBuQqntFMVcUxK8FIT531",
                ("tag", "doppler", "{v}")),
    "pulumi": ("pulumi_token", "pul-5bbe8de00f8742e592dc5f7f810811b14815c33f",
               ("tag", "iac", "{v}")),
    "age_secret_key": (
        "age_key",
        "AGE-SECRET-KEY-132TV090NEZ4WJ79JETNYNT0F8402QF0ZNNUXVCF8HLVFYUY6RKCGNNK3FD",
        ("meta", "sops_key", "# created: 2026-01-01\n{v}")),
    "wireguard_private_key": ("wireguard_key", "b/ooGn/i0/f0idzxeF7Apgtqr17r1cqYoqwnkiSbv9Q=",
                              ("script", "[Interface]\nPrivateKey = {v}\nListenPort = 51820\n")),
    "azure_devops_pat": ("named_base32_secret",
                         "7etf67jq4w7w5axdkrkaw457ytvjfwel7ogr5zilvkvph7n7ctbd",
                         ("env", "AZDO_PAT", "{v}")),
    "app_key_hex": ("named_hex_secret", "d7efb3ededab7d5719e6a5e2ab89126b48e462b7",
                    ("tagpair", "ALGOLIA_APP_KEY", "{v}")),
    "env_api_token": ("named_hex_secret", "34b8760afa02aba08eba3b53f76741bf54cde455",
                      ("meta", "dotenv", "NODE_ENV=production\nAPI_TOKEN={v}\nPORT=8080\n")),
    # passwords in connection strings and URLs
    "postgres_url": ("connection_string", "xjWIgRAdaRyyBBAH3D",
                     ("env", "DATABASE_URL", "postgres://orders:{v}@orders-db:5432/orders")),
    "mongodb_srv": ("connection_string", "3C0WIu9OxkBPG0Tr",
                    ("evidence", "mongodb+srv://reporting:{v}@cluster0.ab1cd.mongodb.net/")),
    "redis_empty_user": ("url_userinfo_empty_user", "bPZeFamkwSvUV5Mbmu1h",
                         ("tag", "cache", "rediss://:{v}@cache.acme.internal:6380/0")),
    "https_userinfo": ("url_credentials", "sVbPJTQ3Iq4c9Y",
                       ("remediation", "Remove the credentials from "
                                       "https://deploy:{v}@git.acme.io/infra.git")),
    "amqp_url": ("connection_string", "0Pncq4Sm5v6M1wW",
                 ("meta", "broker", "amqps://orders:{v}@mq.acme.internal:5671/prod")),
    "jdbc_password": ("jdbc_password", "oV427S85grdO4S",
                      ("meta", "jdbc", "jdbc:sqlserver://sql1:1433;databaseName=billing;"
                                       "user=billing_app;password={v};encrypt=true")),
    "pgpass_line": ("pgpass", "L6F3yC6Vb2u3VqNB",
                    ("script", "echo 'orders-db.acme.internal:5432:orders:report:{v}' "
                               "> ~/.pgpass")),
    # passwords on command lines and in prose
    "curl_user": ("curl_basic_auth", "rMwpLaf4PbPbAMa",
                  ("evidence", "curl -u admin:{v} https://jenkins.acme.internal/api/json")),
    "mysql_p_space": ("cli_password_short_flag", "e4gJdWGYuO0Ejw",
                      ("script", "mysqldump -h db1 -u root -p {v} orders > /tmp/o.sql")),
    "admin_password_flag": ("cli_secret_flag", "elhX4GPXheGa7cxC",
                            ("remediation", "az vm create -n vm1 --admin-username azureuser "
                                            "--admin-password '{v}'")),
    "client_secret_flag": ("cli_secret_flag", "laq_7~HcI17z-G2wxKc3T8.86Lawxen1iX",
                           ("evidence", "az login --service-principal -u app-id "
                                        "--client-secret {v} --tenant acme")),
    "prose_password": ("prose_password", "l97N8ZW0XljUAF",
                       ("description", "The temp admin password is {v} until rotation.")),
    "pwd_colon": ("prose_password", "niBoxV4SYt3gO", ("tag", "notes", "login root pwd: {v}")),
    "ldap_bind": ("ldap_bind_password", "DyotlEA1ZCMjvOU",
                  ("script", "ldapsearch -x -D cn=svc,dc=acme,dc=io -w {v} -b dc=acme,dc=io")),
    # framework settings, config text inside strings
    "django_secret_key": ("framework_secret_key",
                          "s&%1$05hhw*wqvle+x9*n%-7*dc6s1kgrnq$e)f!606v@43v%t",
                          ("evidence", "settings.py: SECRET_KEY = '{v}'")),
    "ini_password": ("ini_password", "ODwM7smP6aJSrYJkh",
                     ("meta", "odbc_ini", "[orders]\nDriver=PostgreSQL\nServer=db1\n"
                                          "Password = {v}\n")),
    "json_in_string_password": ("json_text_secret", "IxY8MNL8EXs9ODEiuZ",
                                ("evidence", '{{"DBInstance": "orders", "MasterUserPassword": '
                                             '"{v}"}}')),
    "yaml_in_string_token": ("yaml_text_secret", "0f044fdc2359a0541ebd2f09af9551d403ed74a2",
                             ("description", "Found in values.yaml:\ngrafana:\n  admin_token: "
                                             "{v}\n  replicas: 2")),
    "ini_in_string_key": ("ini_text_secret", "4791d7dac6efae33e9073b1794e32f1d",
                          ("evidence", "[api]\nendpoint = https://api.acme.io\napp_key = {v}\n")),
    "env_in_string_secret": ("dotenv_text_secret", "qX60oSRhjASv8F8zeFQJ1xeLqVlDdyaxMg2v1N9YQH5u",
                             ("remediation", "Delete .env from the image: it holds "
                                             "SESSION_SECRET={v}")),
    "cfn_params_in_string": ("cfn_text_secret", "h07Z7m0IwHWPezDq",
                             ("evidence", '[{{"ParameterKey": "DBPassword", '
                                          '"ParameterValue": "{v}"}}]')),
    "basic_auth_header": ("authorization", "c3ZjLWRlcGxveTpBbTRzS2pwa1RFdmFmRGZY",
                          ("evidence", "GET /metrics\nAuthorization: Basic {v}")),
    "bearer_token": ("bearer_token", "GWD37-5DcGJW3Y3Tl.34YCt..JTuAc2XFalzak9uufnwEH.b",
                     ("script", "curl -H \"Authorization: Bearer {v}\" https://api.acme.io")),
    "k8s_secret_data": ("k8s_secret_data", "RUNwcGprN0dYcXRZWU4wUVZFSEk=",
                        ("meta", "manifest", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n"
                                             "data:\n  password: {v}\n")),
    "note_in_title": ("prose_password", "vXb5GqygRzl2XwyxBtyD",
                      ("title", "Break-glass account password set to {v}")),
}


def write_estate(folder: Path) -> Path:
    """Write ``findings.json`` holding every planted secret; returns its path."""
    assets: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    for n, (_kind, secret, carrier) in enumerate(PLANTED.values()):
        where = carrier[0]
        asset_id = f"arn:aws:ec2:us-east-1:111122223333:instance/i-0planted{n:08d}"
        asset: dict[str, Any] = {
            "id": asset_id, "arn": asset_id, "name": f"host-{n:02d}", "asset_type": "EC2",
            "provider": "AWS", "region": "us-east-1", "account_id": "111122223333",
            "tags": {"env": "prod"}, "metadata": {},
        }
        text = carrier[-1].format(v=secret)
        if where == "tag":
            asset["tags"][carrier[1]] = text
        elif where == "tagpair":
            asset["metadata"]["Tags"] = [{"Key": carrier[1], "Value": text},
                                         {"Key": "team", "Value": "core"}]
        elif where == "env":
            asset["metadata"]["containerDefinitions"] = [{
                "name": "app", "image": "nginx:1.27",
                "environment": [{"name": "LOG_LEVEL", "value": "info"},
                                {"name": carrier[1], "value": text}],
            }]
        elif where == "cfn":
            asset["metadata"]["Parameters"] = [
                {"ParameterKey": "Env", "ParameterValue": "prod"},
                {"ParameterKey": carrier[1], "ParameterValue": text},
            ]
        elif where == "meta":
            asset["metadata"][carrier[1]] = text
        elif where == "script":
            asset["metadata"]["bootstrap"] = text
        assets.append(asset)
        finding: dict[str, Any] = {
            "id": f"f-{n:03d}", "resource_id": asset_id, "resource_arn": asset_id,
            "severity": "HIGH", "title": f"Finding {n} on host-{n:02d}",
            "description": "A configuration issue.", "evidence": "", "remediation": "Fix it.",
            "source_tool": "planted", "source_finding_id": f"p-{n}",
            "compliance_frameworks": ["NIST-800-53-Revision-5"],
        }
        if where in ("title", "description", "evidence", "remediation"):
            finding[where] = text
        findings.append(finding)
    path = folder / "findings.json"
    path.write_text(json.dumps({"metadata": {"tool": "planted"}, "assets": assets,
                                "findings": findings}, indent=1))
    return path
