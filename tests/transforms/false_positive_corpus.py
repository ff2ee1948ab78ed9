"""Non-secrets common in real inventories that the default policy must leave intact.

``NON_SECRETS`` maps a label to ``(key, value)``: the value as it sits under that key in an
estate record (public keys, certificates, digests, secret *references*, compliance framework
and control names, resource ids, long harmless names, encoded values that hold no secret,
``*_key`` names holding ids, digests and paths). ``estate_arns()`` adds one ARN (or
cloud id) per asset type of the demo and scaled sample estates.
"""

from __future__ import annotations

import base64
import json

from cloudg_nb.estate import demo
from cloudg_nb.estate.samples import scaled

SSH_RSA = (
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDhA3qPbYc4P2lHkBjNdY6yBZbLG7p9qF1nXzW5mR0oK"
    "t8sVw2EuIyT3aGh4JdLcN6fMbXzQpR1sUvW9yZaKcE5dF7gH2iJ3kL4mN5oP6qR7sT8uV9wX0yZ1aB2cD3eF4gH5iJ6"
    "kL7mN8oP9qR0sT1uV2wX3yZ4aB5cD6eF7gH8iJ9kL0mN1oP2qR3sT4uV5wX6yZ7aB8cD9eF0gH1iJ2kL3mN4oP5qR6sT7"
    "uV8wX9yZ0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2yZ3aB4cD5eF6gH7iJ8kL9mN0oP1qR2sT3uV4wX5yZ6aB7c"
    " deploy@build-host"
)
SSH_ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb8sKx2kQ7RmVnE4tLq9Zf3YwP1cHjU6aXoN0dBvTsM ops"
ECDSA = (
    "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBKq7Hn3Lb9Xw2Vc5"
    "Rz8Tm4Yp1Qs6Ud0Fg3Jk7Nh2Mx9Wb4Lc5Ea8Pv1Zr6Ot3Iy0Ks= admin"
)
CERT_PEM = (
    "-----BEGIN CERTIFICATE-----\n"
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
    "RTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\n"
    "VQQDExlCYWx0aW1vcmUgQ3liZXJUcnVzdCBSb290MB4XDTAwMDUxMjE4NDYwMFoX\n"
    "-----END CERTIFICATE-----"
)
CA_DATA_B64 = (
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURkekNDQWwrZ0F3SUJBZ0lFQWdBQXVUQU5CZ2txaGtpRzl3"
    "MEJBUVVGQURCYU1Rc3dDUVlEVlFRR0V3SkoKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="
)
PUBLIC_KEY_PEM = (
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEq7Hn3Lb9Xw2Vc5Rz8Tm4Yp1Qs6Ud\n"
    "0Fg3Jk7Nh2Mx9Wb4Lc5Ea8Pv1Zr6Ot3Iy0KsAbCdEfGhIjKlMnOpQrStUv==\n"
    "-----END PUBLIC KEY-----"
)

def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


NON_SECRETS: dict[str, tuple[str, str]] = {
    # compliance frameworks and controls
    "nist_rev4": ("framework", "NIST-800-53-Revision-4"),
    "nist_rev5": ("framework", "NIST-800-53-Revision-5"),
    "fedramp_ksi": ("framework", "FedRAMP-20x-KSI-Low-25.05C"),
    "fedramp_moderate": ("framework", "FedRAMP-Moderate-Rev5"),
    "cis_aws": ("framework", "CIS-AWS-Foundations-Benchmark-v3.0.0"),
    "cis_azure": ("framework", "CIS-Microsoft-Azure-Foundations-Benchmark-v2.1.0"),
    "pci": ("framework", "PCI-DSS-v4.0.1"),
    "iso": ("framework", "ISO-IEC-27001-2022-Annex-A"),
    "soc2": ("framework", "AICPA-SOC2-TypeII-CC6.1"),
    "hipaa": ("framework", "HIPAA-Security-Rule-164.312(a)(2)(iv)"),
    "aws_fsbp": ("framework", "AWS-Foundational-Security-Best-Practices-v1.0.0"),
    "mitre": ("framework", "MITRE-ATTACK-Enterprise-T1078.004"),
    "nist_csf": ("control_id", "NIST-CSF-2.0-PR.AA-05"),
    "control_ac2": ("control_id", "AC-2(12)(a)"),
    "control_ksi": ("control_id", "KSI-IAM-05"),
    "prowler_check": ("check_id", "iam_user_mfa_enabled_console_access"),
    "securityhub_control": ("control_id", "EC2.19-SecurityGroupsShouldNotAllowUnrestrictedAccess"),
    # public material
    "ssh_rsa_public_key": ("ssh_public_key", SSH_RSA),
    "ssh_ed25519_public_key": ("PublicKey", SSH_ED25519),
    "ssh_ecdsa_public_key": ("authorized_keys", ECDSA),
    "certificate_pem": ("tls.crt", CERT_PEM),
    "certificate_body": ("CertificateBody", CERT_PEM),
    "ca_data": ("certificate-authority-data", CA_DATA_B64),
    "ca_bundle": ("caBundle", CA_DATA_B64),
    "public_key_pem": ("public_key", PUBLIC_KEY_PEM),
    "code_sha256": ("CodeSha256", "Xk3fmq7pWsbIvbZ7Z1sC0F9qK2hN8rT5yUw4eJ6aLdQ="),
    "image_digest": ("imageDigest",
                     "sha256:4b8e8a3c1f0e2d9c7a6b5f4e3d2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    "image_uri_digest": (
        "image",
        "111122223333.dkr.ecr.us-east-1.amazonaws.com/orders-api@sha256:"
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ),
    "etag": ("ETag", "\"d41d8cd98f00b204e9800998ecf8427e\""),
    "sha1_commit": ("commit", "3f786850e387550fdab836ed7e6dc881de23001b"),
    "source_code_hash": ("source_code_hash", "Ym9vdHN0cmFwLXNjcmlwdHMtdjEuMi4zLXJlbGVhc2U="),
    "cert_fingerprint": ("Fingerprint",
                         "3B:2E:91:0C:AA:7F:65:D1:09:8E:44:5B:C2:1D:E6:F0:8A:73:19:B4"),
    "key_pair_fingerprint": ("KeyFingerprint", "1f:51:ae:28:bf:89:e9:d8:1f:25:5d:37:2d:7d:b8:ca"),
    # secret references, not secrets
    "value_from_secretsmanager": (
        "valueFrom",
        "arn:aws:secretsmanager:us-east-1:111122223333:secret:prod/orders/db-AbC123XyZ0:password::",
    ),
    "value_from_ssm": ("valueFrom",
                       "arn:aws:ssm:us-east-1:111122223333:parameter/prod/orders/DB_PASSWORD"),
    "secret_arn": ("SecretArn",
                   "arn:aws:secretsmanager:eu-west-1:111122223333:secret:rds!db-7Hq2Kx9PzLm4Wn8R"),
    "key_vault_ref": ("value", "@Microsoft.KeyVault(SecretUri=https://acme-kv.vault.azure.net/"
                               "secrets/DbPassword/ec96f02080254f109c51a1f14cdb1931)"),
    "gcp_secret_ref": ("secret", "projects/acme-prod-4821/secrets/db-password/versions/latest"),
    "k8s_secret_key_ref": ("secretKeyRef", "orders-db-credentials"),
    # identifiers and names
    "cloudfront_arn": ("arn", "arn:aws:cloudfront::111122223333:distribution/E2QWRUHAPOMQZL"),
    "cloudfront_id": ("Id", "E2QWRUHAPOMQZL"),
    "cloudfront_domain": ("DomainName", "d111111abcdef8.cloudfront.net"),
    "acm_arn": ("CertificateArn",
                "arn:aws:acm:us-east-1:111122223333:certificate/8f0c7a3e-2b1d-4c5e-9f6a-7b8c9d0e1f2a"),
    "apigw_arn": ("arn", "arn:aws:execute-api:us-east-1:111122223333:Ab3dE5fG7h/prod/GET/orders"),
    "cognito_pool": ("UserPoolId", "us-east-1_aBcD3fGh1"),
    "cognito_arn": ("arn",
                    "arn:aws:cognito-idp:us-east-1:111122223333:userpool/us-east-1_aBcD3fGh1"),
    "cfn_dynamic_ref": ("MasterUserPassword",
                        "{{resolve:secretsmanager:prod/orders/db:SecretString:password}}"),
    "ssm_param_ref": ("db_password", "arn:aws:ssm:us-east-1:111122223333:parameter/prod/db-pw"),
    "route53_zone": ("HostedZoneId", "Z1D633PJN98FT9"),
    "route53_arn": ("arn", "arn:aws:route53:::hostedzone/Z08577342R4KQDXJ0SW2N"),
    "iam_unique_id": ("RoleId", "AROA3XFRBF535PLBIFPI4"),
    "iam_user_unique_id": ("UserId", "AIDAJQABLZS4A3QDU576Q"),
    "sfn_exec_arn": ("executionArn", "arn:aws:states:us-east-1:111122223333:execution:"
                                     "OrdersFlow:7Fq2Lm9XzR4Kp8Wn3Tb6Yc1Hd5Jg0Vs"),
    "guardduty_detector": ("DetectorId", "12abc34d567e8fa901bc2d34e56789f0"),
    "uuid": ("finding_id", "8f14e45f-ceea-467a-9a36-dedd4bea2543"),
    "azure_resource_id": (
        "id",
        "/subscriptions/0b1f6471-1bf0-4dda-aec3-cb9272f09590/resourceGroups/Prod-RG/providers/"
        "Microsoft.Compute/virtualMachines/WebVm01",
    ),
    "azure_object_id": ("principalId", "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d"),
    "gcp_resource": ("selfLink", "https://www.googleapis.com/compute/v1/projects/acme-prod-4821/"
                                 "zones/us-central1-a/instances/web-1"),
    "gcp_sa_email_unique_id": ("uniqueId", "104729615736382945671"),
    "cloudg_uri": ("uri", "cloudg://assets/arn:aws:cloudfront::111122223333:distribution/"
                          "E2QWRUHAPOMQZL"),
    "ami_id": ("ImageId", "ami-0abcdef1234567890"),
    "eni_id": ("NetworkInterfaceId", "eni-0f1e2d3c4b5a69788"),
    "ebs_snapshot": ("SnapshotId", "snap-0a1b2c3d4e5f67890"),
    "instance_profile": ("InstanceProfileId", "AIPAJ6K5UZ2CZ3LW4N5QY"),
    "k8s_uid": ("uid", "d2b6a7c4-91e3-4f5a-8b0c-3e2d1f4a5b6c"),
    "request_id": ("RequestId", "5d6f4e2a-1c3b-4a9d-8e7f-0a1b2c3d4e5f"),
    "trail_event_id": ("eventID", "3038ebd2-c98a-4c65-9b6e-e22506292313"),
    "long_name": ("name", "OrdersApiProductionBlueGreenDeploymentTargetGroupV2"),
    "camel_stack": ("StackName", "AcmeOrdersPlatformNetworkingStackEuWest1Prod"),
    "cfn_logical_id": ("LogicalResourceId", "OrdersApiLambdaServiceRoleDefaultPolicy6BC3F1E2"),
    "cdk_asset": ("S3Key", "3f2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a.zip"),
    "base64_policy_name": ("PolicyName", "AWSLambdaBasicExecutionRole-9f3c2b1a-7d6e"),
    "kms_alias": ("AliasName", "alias/aws/secretsmanager"),
    "password_policy": ("PasswordPolicy", "MinimumPasswordLength=14;RequireSymbols=true"),
    "password_last_used": ("password_last_used", "2026-11-02T10:15:00Z"),
    "token_ttl_tag": ("token_ttl", "3600"),
    "secret_rotation": ("rotation", "SecretsManager rotation every 30 days via RotateSecretFn"),
    # ordinary prose and commands that mention credentials without holding one
    "prose_password_required": ("description", "The password is required to be rotated yearly."),
    "prose_token_expired": ("remediation", "If the token was revoked, sign in again."),
    "ssh_port_flag": ("remediation", "ssh -p 2222 -i ~/.ssh/id_ed25519 ec2-user@bastion"),
    "psql_port_flag": ("remediation", "psql -h orders-db -p 5432 -U report orders"),
    "sso_login": ("remediation", "aws sso login --profile prod && aws s3 ls"),
    "kubectl_auth": ("remediation", "kubectl auth can-i list secrets --as system:anonymous"),
    "token_file_flag": ("command", "--token-file /var/run/secrets/eks.amazonaws.com/token"),
    "curl_user_no_password": ("evidence", "curl -u admin https://jenkins.example.com/login"),
    "time_of_day": ("evidence", "Rule evaluated at 12:30:45 on 2026-11-02, run 3:1:0"),
    "git_commit": ("description", "Introduced in commit 3f786850e387550fdab836ed7e6dc881de23001b"),
    # encoded values that hold no secret (issue 36: the decoders must not invent one)
    "b64_host_port": ("endpoint_b64", _b64("db.internal:5432")),
    "b64_time": ("time_b64", _b64("2026-11-02 12:30:45")),
    "b64_tag_pair": ("label_b64", _b64("environment:production")),
    "b64_arn": ("role_b64", _b64("arn:aws:iam::123456789012:role/Deployer")),
    "b64_plain_json": ("binaryData", _b64(json.dumps({"feature_flags": {"new_ui": True},
                                                       "region": "eu-west-1"}))),
    "b64_sentence": ("motd_b64", _b64("Welcome to the orders platform. Authorised use only.")),
    "b64_docker_creds_helper": (".dockerconfigjson", _b64(json.dumps(
        {"credsHelpers": {"public.ecr.aws": "ecr-login"}, "auths": {}}))),
    "percent_encoded_uri": ("redirect_uri", "https%3A%2F%2Fapp.acme.io%2Fcallback%3Fstate%3Dxy"
                                            "z%26scope%3Dopenid"),
    "percent_in_prose": ("description", "95% of buckets are encrypted; 100% of keys rotate."),
    "iam_policy_json_text": ("PolicyDocument", json.dumps({
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": "*"}]})),
    "escaped_policy_json": ("policy", '{\\"Version\\": \\"2012-10-17\\", \\"Statement\\": '
                                      '[{\\"Effect\\": \\"Deny\\"}]}'),
    "configmap_json_text": ("configmap", json.dumps({"kind": "ConfigMap", "data": {
        "LOG_LEVEL": "info", "REGION": "eu-west-1"}})),
    "pod_manifest_secret_ref": ("manifest", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
                                            "  - name: app\n    env:\n    - name: DB_PASSWORD\n"
                                            "      valueFrom:\n        secretKeyRef:\n"
                                            "          name: db\n          key: password\n"),
    "dotenv_placeholders": ("dotenv", "DB_PASSWORD=${DB_PASSWORD}\nAPI_TOKEN={{ .Values.token }}"
                                      "\nREGION=eu-west-1\n"),
    "windows_path": ("path", "C:\\ProgramData\\Amazon\\SSM\\Logs\\new\\temp\\agent.log"),
    # names ending in _key that hold ids, digests and paths
    "cache_key_git_sha": ("command", "cache_key=3f786850e387550fdab836ed7e6dc881de23001b"),
    "idempotency_key_uuid": ("note", "idempotency_key: 8f14e45f-ceea-467a-9a36-dedd4bea2543"),
    "s3_key_path": ("event", "s3_key=logs/2026/11/02/app-7f3a9c.gz"),
    "sort_key": ("index", "sort_key=createdAt2026"),
    "key_rotation_words": ("setting", "key-rotation-enabled-for-all-customer-managed"),
    "cis_kubernetes": ("framework", "CIS-Kubernetes-Benchmark-v1.8.0"),
    "long_dns_like_name": ("dns_name", "OrdersServiceLoadBalancer01.domain.internal-name-abc1"
                                       "23-xyz-987654"),
}


#: Values only their key shows to be public (a bare base64 digest in prose reads as a key).
KEYED_ONLY = frozenset(("code_sha256", "source_code_hash"))


def estate_arns() -> dict[str, str]:
    """One ARN (or cloud id where the asset has no ARN) per asset type of the demo estate
    and of ``scaled(5000)``."""
    out: dict[str, str] = {}
    for label, ds in (("demo", demo()), ("scaled", scaled(5000))):
        frame = ds.assets
        for asset_type, group in frame.groupby("asset_type"):
            row = group.iloc[0]
            arn = row.get("arn")
            out[f"{label}:{asset_type}"] = str(arn) if isinstance(arn, str) and arn else str(
                row["id"])
    return out
