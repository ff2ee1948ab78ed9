"""Scanner and inventory resource types → asset types.

``asset_type_of(raw, provider)`` reads AWS CloudFormation names (``AWS::EC2::Instance``),
Prowler/ASFF names (``AwsEc2Instance``), Azure resource types (``Microsoft.Compute/
virtualMachines``), GCP asset types (``compute.googleapis.com/Instance``) and Kubernetes kinds
(``Pod``, ``ClusterRole``); it returns None for a type it does not know (the caller loads OTHER
and keeps the original type), never a guess from a substring.
"""

from __future__ import annotations

import re

__all__ = ["asset_type_of"]

# AWS: CloudFormation and Prowler/ASFF spellings share one key once "::" and case are gone
# (AWS::EC2::Instance → awsec2instance = AwsEc2Instance).
_AWS = {
    "awsec2instance": "EC2", "awsec2securitygroup": "SECURITY_GROUP",
    "awsec2networkacl": "SECURITY_GROUP", "awsec2vpc": "VPC", "awsec2subnet": "SUBNET",
    "awsec2internetgateway": "INTERNET_GATEWAY", "awsec2image": "CONTAINER_IMAGE",
    "awss3bucket": "S3_BUCKET", "awsiamrole": "IAM_ROLE", "awsiamuser": "IAM_USER",
    "awsiamgroup": "IAM_USER", "awsiampolicy": "IAM_POLICY", "awsiammanagedpolicy": "IAM_POLICY",
    "awsiamaccesskey": "IAM_USER", "awsrdsdbinstance": "RDS_INSTANCE",
    "awsrdsdbcluster": "RDS_INSTANCE", "awsdynamodbtable": "SQL_DATABASE",
    "awskmskey": "KMS_KEY", "awslambdafunction": "LAMBDA_FUNCTION",
    "awselbv2loadbalancer": "LOAD_BALANCER", "awselbloadbalancer": "LOAD_BALANCER",
    "awselasticloadbalancingloadbalancer": "LOAD_BALANCER",
    "awselasticloadbalancingv2loadbalancer": "LOAD_BALANCER",
    "awssecretsmanagersecret": "SECRET", "awsssmparameter": "SECRET", "awsaccount": "CLOUD_ACCOUNT",
    "awswafv2webacl": "WAF", "awswafwebacl": "WAF", "awswafregionalwebacl": "WAF",
    "awslogsloggroup": "LOG_GROUP", "awscloudtrailtrail": "LOG_GROUP",
    "awsecrrepository": "CONTAINER_IMAGE", "awsecsservice": "CONTAINER_WORKLOAD",
    "awsecstaskdefinition": "CONTAINER_WORKLOAD", "awsekscluster": "KUBERNETES_CLUSTER",
    "awsorganizationsaccount": "CLOUD_ACCOUNT", "awsorganizationsorganization": "ORGANIZATION",
    "awsorganizationsorganizationalunit": "ORG_UNIT",
}
# Azure resource types, lower-case.
_AZURE = {
    "microsoft.compute/virtualmachines": "VIRTUAL_MACHINE",
    "microsoft.compute/virtualmachinescalesets": "VIRTUAL_MACHINE",
    "microsoft.network/networksecuritygroups": "NSG", "microsoft.network/virtualnetworks": "VNET",
    "microsoft.network/virtualnetworks/subnets": "SUBNET",
    "microsoft.network/loadbalancers": "LOAD_BALANCER",
    "microsoft.network/applicationgateways": "LOAD_BALANCER",
    "microsoft.network/applicationgatewaywebapplicationfirewallpolicies": "WAF",
    "microsoft.keyvault/vaults": "KEY_VAULT", "microsoft.keyvault/vaults/secrets": "SECRET",
    "microsoft.keyvault/vaults/keys": "KMS_KEY",
    "microsoft.storage/storageaccounts": "STORAGE_ACCOUNT",
    "microsoft.sql/servers": "SQL_DATABASE", "microsoft.sql/servers/databases": "SQL_DATABASE",
    "microsoft.dbforpostgresql/flexibleservers": "SQL_DATABASE",
    "microsoft.dbformysql/flexibleservers": "SQL_DATABASE",
    "microsoft.documentdb/databaseaccounts": "SQL_DATABASE",
    "microsoft.web/sites": "LAMBDA_FUNCTION",
    "microsoft.containerservice/managedclusters": "KUBERNETES_CLUSTER",
    "microsoft.containerregistry/registries": "CONTAINER_IMAGE",
    "microsoft.managedidentity/userassignedidentities": "IAM_ROLE",
    "microsoft.authorization/roledefinitions": "IAM_POLICY",
    "microsoft.authorization/roleassignments": "IAM_POLICY",
    "microsoft.insights/activitylogalerts": "LOG_GROUP",
    "microsoft.operationalinsights/workspaces": "LOG_GROUP",
    "microsoft.resources/subscriptions": "CLOUD_ACCOUNT",
    "microsoft.management/managementgroups": "ORG_UNIT",
}
# GCP Cloud Asset Inventory types, lower-case.
_GCP = {
    "compute.googleapis.com/instance": "GCE_INSTANCE",
    "compute.googleapis.com/firewall": "SECURITY_GROUP",
    "compute.googleapis.com/network": "VPC", "compute.googleapis.com/subnetwork": "SUBNET",
    "compute.googleapis.com/forwardingrule": "LOAD_BALANCER",
    "compute.googleapis.com/backendservice": "LOAD_BALANCER",
    "compute.googleapis.com/securitypolicy": "WAF",
    "compute.googleapis.com/image": "CONTAINER_IMAGE",
    "storage.googleapis.com/bucket": "GCS_BUCKET",
    "iam.googleapis.com/serviceaccount": "SERVICE_ACCOUNT",
    "iam.googleapis.com/serviceaccountkey": "SERVICE_ACCOUNT",
    "iam.googleapis.com/role": "IAM_ROLE",
    "cloudkms.googleapis.com/cryptokey": "KMS_KEY", "cloudkms.googleapis.com/keyring": "KMS_KEY",
    "sqladmin.googleapis.com/instance": "SQL_DATABASE",
    "bigquery.googleapis.com/dataset": "SQL_DATABASE",
    "secretmanager.googleapis.com/secret": "SECRET",
    "cloudfunctions.googleapis.com/cloudfunction": "LAMBDA_FUNCTION",
    "cloudfunctions.googleapis.com/function": "LAMBDA_FUNCTION",
    "run.googleapis.com/service": "CONTAINER_WORKLOAD",
    "container.googleapis.com/cluster": "KUBERNETES_CLUSTER",
    "logging.googleapis.com/logsink": "LOG_GROUP", "logging.googleapis.com/logbucket": "LOG_GROUP",
    "cloudresourcemanager.googleapis.com/project": "CLOUD_ACCOUNT",
    "cloudresourcemanager.googleapis.com/folder": "ORG_UNIT",
    "cloudresourcemanager.googleapis.com/organization": "ORGANIZATION",
}
# Kubernetes kinds (and the names Prowler's Kubernetes checks use), lower-case.
_KUBERNETES = {
    "pod": "CONTAINER_WORKLOAD", "deployment": "CONTAINER_WORKLOAD",
    "daemonset": "CONTAINER_WORKLOAD", "statefulset": "CONTAINER_WORKLOAD",
    "replicaset": "CONTAINER_WORKLOAD", "job": "CONTAINER_WORKLOAD",
    "cronjob": "CONTAINER_WORKLOAD", "container": "CONTAINER_WORKLOAD",
    "node": "VIRTUAL_MACHINE", "namespace": "ORG_UNIT", "serviceaccount": "SERVICE_ACCOUNT",
    "role": "IAM_ROLE", "clusterrole": "IAM_ROLE", "rolebinding": "IAM_POLICY",
    "clusterrolebinding": "IAM_POLICY", "secret": "SECRET", "networkpolicy": "SECURITY_GROUP",
    "ingress": "LOAD_BALANCER", "service": "LOAD_BALANCER", "cluster": "KUBERNETES_CLUSTER",
    "apiserver": "KUBERNETES_CLUSTER", "kubernetesapiserver": "KUBERNETES_CLUSTER",
    "controllermanager": "KUBERNETES_CLUSTER", "kubernetescontrollermanager": "KUBERNETES_CLUSTER",
    "scheduler": "KUBERNETES_CLUSTER", "kubernetesscheduler": "KUBERNETES_CLUSTER",
    "etcd": "KUBERNETES_CLUSTER", "kubelet": "VIRTUAL_MACHINE", "kubeletconfig": "VIRTUAL_MACHINE",
}
# Prowler's short types for GCP and Azure resources (its GCP checks say "Instance",
# "Firewall", "Bucket" ...), read only for that provider.
_SHORT = {
    "GCP": {"instance": "GCE_INSTANCE", "firewall": "SECURITY_GROUP", "bucket": "GCS_BUCKET",
            "firewallrule": "SECURITY_GROUP",
            "serviceaccount": "SERVICE_ACCOUNT", "cryptokey": "KMS_KEY", "network": "VPC",
            "subnet": "SUBNET", "subnetwork": "SUBNET", "project": "CLOUD_ACCOUNT",
            "cloudsql": "SQL_DATABASE", "databaseinstance": "SQL_DATABASE",
            "cluster": "KUBERNETES_CLUSTER", "dataset": "SQL_DATABASE"},
    "AZURE": {"virtualmachine": "VIRTUAL_MACHINE", "vm": "VIRTUAL_MACHINE",
              "networksecuritygroup": "NSG", "nsg": "NSG", "keyvault": "KEY_VAULT",
              "vault": "KEY_VAULT", "storageaccount": "STORAGE_ACCOUNT",
              "sqlserver": "SQL_DATABASE", "server": "SQL_DATABASE", "virtualnetwork": "VNET",
              "subscription": "CLOUD_ACCOUNT", "aks": "KUBERNETES_CLUSTER"},
}
_NON_ALNUM = re.compile(r"[^a-z0-9]")


def asset_type_of(raw: str, provider: str | None = None) -> str | None:
    """The ``AssetType`` value of resource type ``raw`` (see the module doc), else None."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    key = raw.strip().lower()
    flat = _NON_ALNUM.sub("", key)
    if key.startswith("aws") and flat in _AWS:
        return _AWS[flat]
    if key.startswith("microsoft."):
        return _AZURE.get(key.rstrip("/"))
    if ".googleapis.com/" in key:
        return _GCP.get(key)
    if provider == "KUBERNETES":
        return _KUBERNETES.get(flat)
    if provider in _SHORT:
        return _SHORT[provider].get(flat)
    return None
