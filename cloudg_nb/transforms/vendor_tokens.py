"""Vendor token formats: the prefixes and shapes vendors document for their keys and tokens.

Each entry is ``(vendor, pattern)``; the patterns are ours, written from the vendors' public
format descriptions (cross-checked against what well-kept scanners such as gitleaks and
trufflehog know). ``MIXED`` formats are searched only in strings that are not all lower case
(most hold an upper-case letter themselves; a few rare lower-case ones are found where the
string has one, e.g. ``NAME=token``); ``LOWER`` formats can be all lower case and each
starts with one of ``LOWER_TRIGGERS``, so only strings holding one are searched.
"""

from __future__ import annotations

__all__ = ["MIXED", "LOWER", "LOWER_TRIGGERS", "vendors"]

#: Formats with an upper-case letter in every token (a fixed prefix or a documented shape).
MIXED: tuple[tuple[str, str], ...] = (
    ("Twilio API key", r"SK[0-9a-f]{32}"),
    ("Slack app-level token", r"xapp-\d-[A-Z0-9]{6,}-\d{6,}-[0-9a-f]{20,}"),
    ("Linear", r"lin_api_[A-Za-z0-9]{40}"),
    ("New Relic", r"NR(?:AK|JS|II)-[A-Z0-9]{19,32}|[0-9a-f]{36}NRAL"),
    ("Postman", r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}"),
    ("age", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("GitLab", r"gl(?:pat|rt|rtr|dt|ptt|ft|oas|cbt|imt|agent|soat|ffct|wt)-[A-Za-z0-9_.-]{20,}"
               r"|GR1348941[A-Za-z0-9_-]{20,}"),
    ("npm", r"npm_[A-Za-z0-9]{36}"),
    ("PyPI", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    ("SendGrid", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    ("Hugging Face", r"hf_[A-Za-z0-9]{34,}|api_org_[A-Za-z0-9]{34}"),
    ("OpenAI", r"sk-(?:proj-|svcacct-|admin-)[A-Za-z0-9_-]{20,}"
               r"|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}"
               r"|sk-(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{48}"),
    ("Anthropic", r"sk-ant-(?:api|admin|oat|ort)\d\d-[A-Za-z0-9_-]{20,}"),
    ("Groq, xAI, Replicate, Perplexity",
     r"gsk_[A-Za-z0-9]{52}|xai-[A-Za-z0-9]{70,}|r8_[A-Za-z0-9]{37}|pplx-[A-Za-z0-9]{48}"),
    ("HashiCorp Vault", r"hv[sbr]\.[A-Za-z0-9_-]{24,}"
                        r"|s\.(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*\d)"
                        r"[A-Za-z0-9]{24}"),
    ("Terraform Cloud", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
    ("Doppler", r"dp\.(?:st|ct|sa|scim|audit|pt)\.[A-Za-z0-9._-]{40,}"),
    ("Grafana", r"gl(?:sa|c)_[A-Za-z0-9_=+/-]{32,}|eyJrIjoi[A-Za-z0-9]{70,400}={0,3}"),
    ("Sentry", r"sntrys_[A-Za-z0-9_=+/-]{40,}"),
    ("Notion", r"ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}"),
    ("Atlassian", r"ATATT3[A-Za-z0-9_=-]{100,}|ATBB[A-Za-z0-9_=.-]{32,}"),
    ("JFrog Artifactory", r"AKCp[A-Za-z0-9]{60,}|cmVmd[A-Za-z0-9]{59}"),
    ("Square", r"EAAA[A-Za-z0-9_-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}"),
    ("Facebook", r"EAACEdEose0cBA[A-Za-z0-9]{20,}|EAA[MC][A-Za-z0-9]{100,}"),
    ("Telegram", r"\d{8,10}:AA[A-Za-z0-9_-]{33}"),
    ("Google OAuth", r"GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[A-Za-z0-9_-]{30,}"
                     r"|1//0[A-Za-z0-9_-]{40,}"),
    ("Azure AD client secret", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    ("AWS Bedrock", r"ABSK[A-Za-z0-9+/]{100,}={0,2}"),
    ("Alibaba Cloud", r"LTAI[A-Za-z0-9]{20}"),
    ("Heroku", r"HRKU-AA[A-Za-z0-9_-]{58}"),
    ("Stripe webhook secret", r"whsec_[A-Za-z0-9]{32,}"),
    ("Docker Hub", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}"),
    ("CircleCI", r"CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    ("1Password", r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}"
                  r"|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})"
                  r"-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"),
    ("Airtable", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("Contentful", r"CFPAT-[A-Za-z0-9_-]{43}"),
    ("Dynatrace", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    ("EasyPost", r"EZ[AT]K[A-Za-z0-9]{54}"),
    ("Duffel", r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}"),
    ("Figma", r"figd_[A-Za-z0-9_-]{40}"),
    ("Fly.io", r"fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}"),
    ("Frame.io", r"fio-u-[A-Za-z0-9_=-]{64}"),
    ("Infracost", r"ico-[A-Za-z0-9]{32}"),
    ("MaxMind", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk"),
    ("OpenShift", r"sha256~[A-Za-z0-9_-]{43}"),
    ("PlanetScale", r"pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}"),
    ("Prefect", r"pnu_[A-Za-z0-9]{36}"),
    ("Scalingo", r"tk-us-[A-Za-z0-9_-]{48}"),
    ("Brevo (Sendinblue)", r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("Shippo", r"shippo_(?:live|test)_[a-fA-F0-9]{40}"),
    ("Supabase", r"sb_secret_[A-Za-z0-9_-]{20,}|sbp_[0-9a-f]{40}"),
    # Lower-case formats rarely met: searched in strings with an upper-case letter
    # (``SONAR_TOKEN=sqp_…``, JSON, a line of config), not in every all-lower-case string:
    # each literal searched in all strings costs a pass over the text.
    ("Buildkite", r"bkua_[0-9a-f]{40}"),
    ("SonarQube", r"sq[pua]_[0-9a-f]{40}"),
    ("ReadMe", r"rdme_[a-z0-9]{70}"),
    ("NuGet", r"oy2[a-z0-9]{43}"),
    ("Cloudflare origin CA", r"v1\.0-[0-9a-f]{24}-[0-9a-f]{146}"),
    ("Tailscale", r"tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}"),
    ("Typeform", r"tfp_[A-Za-z0-9_.=-]{59}"),
    ("Netlify, Render", r"nfp_[A-Za-z0-9]{36}|rnd_[A-Za-z0-9]{32}"),
    ("Harness", r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    ("Sourcegraph", r"sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}"),
    ("Yandex Cloud", r"AQVN[A-Za-z0-9_-]{35,38}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}"),
    # (the first part is base64 of a numeric user id: M/N/O, then T, j, z or D)
    ("Discord bot", r"[MNO][TjzD][A-Za-z0-9]{21,24}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"),
    ("Twitter/X bearer", r"A{22}[A-Za-z0-9%]{80,100}"),
    ("Dropbox", r"sl\.(?:u\.)?[A-Za-z0-9_=-]{130,}"),
    ("Mapbox secret", r"sk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}"),
    ("Adobe", r"p8e-[A-Za-z0-9]{32}"),
    ("Clojars", r"CLOJARS_[a-z0-9]{60}"),
    ("Flutterwave", r"FLWSECK(?:_TEST)?-[a-hA-H0-9]{32}-X"),
    ("Octopus Deploy", r"API-(?=[A-Z0-9]*\d)[A-Z0-9]{26}"),
    ("Mandrill", r"md-(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{22}"),
)

#: Formats that can be all lower case (hex bodies); each starts with a literal trigger.
LOWER: tuple[tuple[str, str], ...] = (
    ("Mailgun", r"key-(?=[0-9a-z]*\d[0-9a-z]*\d)(?=[0-9a-z]*[a-z][0-9a-z]*[a-z])[0-9a-z]{32}"),
    ("Mailchimp", r"[0-9a-f]{32}-us\d{1,2}"),
    ("Pulumi", r"pul-[0-9a-f]{40}"),
    ("RubyGems", r"rubygems_[0-9a-f]{48}"),
    ("DigitalOcean", r"do[por]_v1_[0-9a-f]{64}"),
    ("Databricks", r"dapi[0-9a-f]{32}(?:-\d+)?"),
    ("Shopify", r"shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}"),
    ("GitLab trigger token", r"glptt-[0-9a-f]{40}"),
    ("Sentry user token", r"sntryu_[0-9a-f]{64}"),
)
LOWER_TRIGGERS: tuple[str, ...] = (
    "key-", "-us", "pul-", "rubygems_", "_v1_", "dapi", "shp", "glptt-", "sntryu_",
)


def vendors(formats: tuple[tuple[str, str], ...]) -> str:
    """The vendor names of ``formats``, for a detector's description."""
    return ", ".join(dict.fromkeys(name for name, _ in formats))
