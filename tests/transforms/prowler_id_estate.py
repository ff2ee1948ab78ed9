"""A Prowler OCSF scan of AWS, Azure, GCP and Kubernetes whose resource and finding ids look
like the real ones: ARNs with random-looking ids (CloudFront, API Gateway, KMS, Secrets
Manager suffixes, ELB hashes), Azure resource ids, GCP resource names and numeric ids,
service-account e-mails, Kubernetes uids and Prowler's own ``prowler-<provider>-<check>-…``
finding ids (with the spaces and colons Kubernetes namespaces put in them).

``write_scan(folder)`` writes ``prowler-scan.ocsf.json`` for ``load_dataset``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILE = "prowler-scan.ocsf.json"

AWS_ACCOUNT = "111122223333"
AZURE_SUBSCRIPTION = "5f1c0a2e-7b3d-4c8e-9a61-0d2b4e6f8a10"
GCP_PROJECT = "shop-prod-381214"
K8S_CLUSTER = "kind-shop-prod"

_SUB = f"/subscriptions/{AZURE_SUBSCRIPTION}"

#: (provider, region, resource uid, resource name, resource type, check id)
RESOURCES: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("aws", "us-east-1", f"arn:aws:cloudfront::{AWS_ACCOUNT}:distribution/E2QWRUHAPOMQZL",
     "E2QWRUHAPOMQZL", "AwsCloudFrontDistribution", "cloudfront_distributions_https_enabled"),
    ("aws", "eu-west-1", "arn:aws:apigateway:eu-west-1::/restapis/9xk2mq7zpl/stages/prod",
     "prod", "AwsApiGatewayStage", "apigateway_restapi_logging_enabled"),
    ("aws", "us-east-1",
     f"arn:aws:execute-api:us-east-1:{AWS_ACCOUNT}:Ab3dE5fG7h/prod/GET/orders", "orders",
     "Other", "apigateway_restapi_authorizers_enabled"),
    ("aws", "eu-west-1",
     f"arn:aws:kms:eu-west-1:{AWS_ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab",
     "1234abcd-12ab-34cd-56ef-1234567890ab", "AwsKmsKey", "kms_cmk_rotation_enabled"),
    ("aws", "eu-west-1",
     f"arn:aws:secretsmanager:eu-west-1:{AWS_ACCOUNT}:secret:prod/orders/db-master-Xk9QpZ",
     "prod/orders/db-master", "AwsSecretsManagerSecret",
     "secretsmanager_automatic_rotation_enabled"),
    ("aws", "eu-west-1",
     f"arn:aws:elasticloadbalancing:eu-west-1:{AWS_ACCOUNT}:loadbalancer/app/shop-alb/"
     "50dc6c495c0c9188", "shop-alb", "AwsElbv2LoadBalancer", "elbv2_waf_acl_attached"),
    ("aws", "eu-west-1", f"arn:aws:ec2:eu-west-1:{AWS_ACCOUNT}:instance/i-0f3a9c2b7d1e4a5b6",
     "i-0f3a9c2b7d1e4a5b6", "AwsEc2Instance", "ec2_instance_imdsv2_enabled"),
    ("aws", "eu-west-1", f"arn:aws:ec2:eu-west-1:{AWS_ACCOUNT}:volume/vol-049df61146c4d7901",
     "vol-049df61146c4d7901", "AwsEc2Volume", "ec2_ebs_volume_encryption"),
    ("aws", "eu-west-1",
     f"arn:aws:ec2:eu-west-1:{AWS_ACCOUNT}:snapshot/snap-0b5f8c9e2a7d3c1f4",
     "snap-0b5f8c9e2a7d3c1f4", "AwsEc2Snapshot", "ec2_ebs_public_snapshot"),
    ("aws", "eu-west-1", "arn:aws:ec2:eu-west-1::image/ami-0c55b159cbfafe1f0",
     "ami-0c55b159cbfafe1f0", "AwsEc2Image", "ec2_ami_public"),
    ("aws", "eu-west-1",
     f"arn:aws:ec2:eu-west-1:{AWS_ACCOUNT}:security-group/sg-0123456789abcdef0",
     "sg-0123456789abcdef0", "AwsEc2SecurityGroup",
     "ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22"),
    ("aws", "eu-west-1", f"arn:aws:ec2:eu-west-1:{AWS_ACCOUNT}:vpc/vpc-0e9f8d7c6b5a49382",
     "vpc-0e9f8d7c6b5a49382", "AwsEc2Vpc", "vpc_flow_logs_enabled"),
    ("aws", "eu-west-1",
     f"arn:aws:acm:eu-west-1:{AWS_ACCOUNT}:certificate/8f2b6c1e-3d4a-4b5c-9e7f-0a1b2c3d4e5f",
     "shop.example.com", "AwsCertificateManagerCertificate", "acm_certificates_expiration_check"),
    ("aws", "eu-west-1", f"arn:aws:sns:eu-west-1:{AWS_ACCOUNT}:alerts-Xk9Qp2Lm7Zr4",
     "alerts-Xk9Qp2Lm7Zr4", "AwsSnsTopic", "sns_topics_kms_encryption_at_rest_enabled"),
    ("aws", "eu-west-1", f"arn:aws:lambda:eu-west-1:{AWS_ACCOUNT}:function:orders-ingest",
     "orders-ingest", "AwsLambdaFunction", "awslambda_function_no_secrets_in_variables"),
    ("aws", "global",
     f"arn:aws:iam::{AWS_ACCOUNT}:role/service-role/orders-ingest-role-x7k2p9qa",
     "orders-ingest-role-x7k2p9qa", "AwsIamRole", "iam_role_administratoraccess_policy"),
    ("aws", "global", f"arn:aws:iam::{AWS_ACCOUNT}:user/ci-deployer", "ci-deployer",
     "AwsIamUser", "iam_user_accesskey_unused"),
    ("aws", "global", f"arn:aws:iam::{AWS_ACCOUNT}:root", "<root_account>", "AwsAccount",
     "iam_root_hardware_mfa_enabled"),
    ("aws", "eu-west-1", f"arn:aws:ecr:eu-west-1:{AWS_ACCOUNT}:repository/shop/orders",
     "shop/orders", "AwsEcrRepository", "ecr_repositories_scan_images_on_push_enabled"),
    ("aws", "eu-west-1", f"arn:aws:eks:eu-west-1:{AWS_ACCOUNT}:cluster/shop-prod",
     "shop-prod", "AwsEksCluster", "eks_cluster_not_publicly_accessible"),
    ("aws", "eu-west-1", f"arn:aws:rds:eu-west-1:{AWS_ACCOUNT}:db:orders-pg-1",
     "orders-pg-1", "AwsRdsDbInstance", "rds_instance_storage_encrypted"),
    ("aws", "eu-west-1",
     f"arn:aws:cognito-idp:eu-west-1:{AWS_ACCOUNT}:userpool/eu-west-1_aBcDeFgHi",
     "eu-west-1_aBcDeFgHi", "AwsCognitoUserPool", "cognito_user_pool_mfa_enabled"),
    ("aws", "us-east-1",
     f"arn:aws:wafv2:us-east-1:{AWS_ACCOUNT}:global/webacl/shop-waf/"
     "a1b2c3d4-5678-90ab-cdef-0123456789ab", "shop-waf", "AwsWafv2WebAcl",
     "wafv2_webacl_logging_enabled"),
    ("aws", "eu-west-1",
     f"arn:aws:elasticfilesystem:eu-west-1:{AWS_ACCOUNT}:file-system/fs-0a1b2c3d4e5f67890",
     "fs-0a1b2c3d4e5f67890", "AwsEfsFileSystem", "efs_encryption_at_rest_enabled"),
    ("aws", "eu-west-1",
     f"arn:aws:logs:eu-west-1:{AWS_ACCOUNT}:log-group:/aws/lambda/orders-ingest:*",
     "/aws/lambda/orders-ingest", "AwsLogsLogGroup", "cloudwatch_log_group_retention_policy"),
    ("aws", "eu-west-1", "arn:aws:s3:::shop-assets-9f8e7d6c5b4a", "shop-assets-9f8e7d6c5b4a",
     "AwsS3Bucket", "s3_bucket_public_access"),
    ("aws", "eu-west-1",
     f"arn:aws:ssm:eu-west-1:{AWS_ACCOUNT}:parameter/prod/orders/db-password",
     "/prod/orders/db-password", "AwsSsmParameter", "ssm_document_secrets"),
    ("azure", "westeurope",
     f"{_SUB}/resourceGroups/rg-shop/providers/Microsoft.Compute/virtualMachines/vm-jump-01",
     "vm-jump-01", "Microsoft.Compute/virtualMachines", "vm_ensure_using_managed_disks"),
    ("azure", "westeurope",
     f"{_SUB}/resourceGroups/rg-shop/providers/Microsoft.KeyVault/vaults/kv-shop-prod-7x2q",
     "kv-shop-prod-7x2q", "Microsoft.KeyVault/vaults", "keyvault_recoverable"),
    ("azure", "westeurope",
     f"{_SUB}/resourceGroups/rg-aks/providers/Microsoft.ContainerService/managedClusters/"
     "aks-shop", "aks-shop", "Microsoft.ContainerService/managedClusters",
     "aks_clusters_public_access_disabled"),
    ("azure", "westeurope",
     f"{_SUB}/resourceGroups/rg-shop/providers/Microsoft.Sql/servers/sql-shop-x9k2",
     "sql-shop-x9k2", "Microsoft.Sql/servers", "sqlserver_auditing_enabled"),
    ("azure", "westeurope",
     f"{_SUB}/resourceGroups/rg-shop/providers/Microsoft.Storage/storageAccounts/"
     "stshopprod7x2q9", "stshopprod7x2q9", "Microsoft.Storage/storageAccounts",
     "storage_secure_transfer_required_is_enabled"),
    ("azure", "global",
     f"{_SUB}/providers/Microsoft.Authorization/roleDefinitions/"
     "8e3af657-a8ff-443c-a75c-2fe8c4bcb635", "Owner", "Microsoft.Authorization/roleDefinitions",
     "iam_subscription_roles_owner_custom_not_created"),
    ("azure", "global", f"{_SUB}/providers/Microsoft.Security/pricings/VirtualMachines",
     "VirtualMachines", "Microsoft.Security/pricings", "defender_ensure_defender_for_server_is_on"),
    ("azure", "global", "c6f1e2d3-4b5a-4978-8a9b-0c1d2e3f4a5b", "ops-admin",
     "Microsoft.Entra/users", "entra_privileged_user_has_mfa"),
    ("gcp", "europe-west1",
     f"projects/{GCP_PROJECT}/zones/europe-west1-b/instances/web-1", "web-1",
     "compute.googleapis.com/Instance", "compute_instance_public_ip"),
    ("gcp", "europe-west1", "4872093478293847561", "web-2", "compute.googleapis.com/Instance",
     "compute_instance_shielded_vm_enabled"),
    ("gcp", "global", f"projects/{GCP_PROJECT}/global/firewalls/allow-ssh-anywhere",
     "allow-ssh-anywhere", "compute.googleapis.com/Firewall",
     "compute_firewall_ssh_access_from_the_internet_allowed"),
    ("gcp", "global", f"orders-sa@{GCP_PROJECT}.iam.gserviceaccount.com",
     f"orders-sa@{GCP_PROJECT}.iam.gserviceaccount.com", "iam.googleapis.com/ServiceAccount",
     "iam_sa_no_user_managed_keys"),
    ("gcp", "europe-west1",
     f"projects/{GCP_PROJECT}/locations/europe-west1/keyRings/shop/cryptoKeys/orders",
     "orders", "cloudkms.googleapis.com/CryptoKey", "kms_key_rotation_enabled"),
    ("gcp", "europe-west1", f"{GCP_PROJECT}:europe-west1:orders-pg", "orders-pg",
     "sqladmin.googleapis.com/Instance", "cloudsql_instance_public_ip"),
    ("gcp", "EU", f"{GCP_PROJECT}-backups-7d3f9a", f"{GCP_PROJECT}-backups-7d3f9a",
     "storage.googleapis.com/Bucket", "cloudstorage_bucket_public_access"),
    ("gcp", "EU", f"{GCP_PROJECT}:analytics", "analytics", "bigquery.googleapis.com/Dataset",
     "bigquery_dataset_public_access"),
    ("kubernetes", "namespace: kube-system", "8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d5e",
     "kube-apiserver-kind-control-plane", "KubernetesAPIServer",
     "apiserver_anonymous_requests"),
    ("kubernetes", "namespace: default", "0d3e2f1a-9b8c-4d7e-a6f5-4e3d2c1b0a9f",
     "orders-7d9f8c6b5d-x2k9p", "Pod", "core_minimize_privileged_containers"),
    ("kubernetes", "cluster-wide", "f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9",
     "system:masters-binding", "ClusterRoleBinding", "rbac_minimize_wildcard_use_roles"),
)

_ACCOUNTS = {"aws": {"uid": AWS_ACCOUNT, "name": "shop-prod", "type": "AWS Account"},
             "azure": {"uid": AZURE_SUBSCRIPTION, "name": "shop-subscription",
                       "type": "Azure AD Account"},
             "gcp": {"uid": GCP_PROJECT, "name": "shop-prod", "type": "GCP Account"},
             "kubernetes": {"uid": "", "name": K8S_CLUSTER, "type": "Kubernetes Context"}}


def finding_id(provider: str, check: str, region: str, name: str) -> str:
    """Prowler's finding uid: ``prowler-<provider>-<check>-<account>-<region>-<name>``."""
    account = _ACCOUNTS[provider]["uid"] or _ACCOUNTS[provider]["name"]
    return f"prowler-{provider}-{check}-{account}-{region}-{name}"


def _record(provider: str, region: str, uid: str, name: str, rtype: str, check: str,
            status: str) -> dict[str, Any]:
    title = check.replace("_", " ").capitalize() + "."
    return {
        "message": f"{name} fails {check}." if status == "FAIL" else f"{name} passes.",
        "metadata": {"event_code": check, "product": {"name": "Prowler", "uid": "prowler",
                                                       "vendor_name": "Prowler",
                                                       "version": "5.1.0"},
                     "version": "1.4.0"},
        "severity_id": 4, "severity": "High", "status": "New", "status_code": status,
        "status_detail": f"{name} fails {check}." if status == "FAIL" else "",
        "finding_info": {"created_time_dt": "2026-11-20T09:15:00Z", "title": title,
                         "desc": f"Checks {rtype} resources.",
                         "uid": finding_id(provider, check, region, name)},
        "resources": [{"cloud_partition": provider, "region": region, "name": name,
                       "type": rtype, "uid": uid, "labels": [],
                       "group": {"name": check.split("_", 1)[0]}}],
        "cloud": {"account": dict(_ACCOUNTS[provider]), "provider": provider,
                  "region": region},
        "remediation": {"desc": "Follow the check's recommendation.", "references": []},
        "unmapped": {"compliance": {"CIS-3.0": ["1.1"]}},
        "class_uid": 2004, "time_dt": "2026-11-20T09:15:00Z",
    }


def records() -> list[dict[str, Any]]:
    """One failing finding per resource, plus one passing check on every third resource."""
    out = [_record(*r, "FAIL") for r in RESOURCES]
    out += [_record(p, reg, uid, name, rtype, check + "_baseline", "PASS")
            for p, reg, uid, name, rtype, check in RESOURCES[::3]]
    return out


def write_scan(folder: Path) -> Path:
    path = folder / FILE
    path.write_text(json.dumps(records(), indent=1))
    return path
