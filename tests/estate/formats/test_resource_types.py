"""Resource types of AWS (CloudFormation and Prowler spellings), Azure, GCP and Kubernetes map
to asset types; an unknown type is None (loaded as OTHER), never guessed from a substring."""

from __future__ import annotations

import pytest

from cloudg_nb.estate.formats.resource_types import asset_type_of


@pytest.mark.parametrize(("raw", "provider", "expected"), [
    ("AWS::EC2::Instance", "AWS", "EC2"), ("AwsEc2Instance", "AWS", "EC2"),
    ("AWS::CloudTrail::Trail", "AWS", "LOG_GROUP"), ("AwsCloudTrailTrail", "AWS", "LOG_GROUP"),
    ("AWS::EC2::SecurityGroup", "AWS", "SECURITY_GROUP"), ("AwsS3Bucket", "AWS", "S3_BUCKET"),
    ("AWS::EKS::Cluster", "AWS", "KUBERNETES_CLUSTER"),
    ("Microsoft.Compute/virtualMachines", "AZURE", "VIRTUAL_MACHINE"),
    ("Microsoft.Network/networkSecurityGroups", "AZURE", "NSG"),
    ("Microsoft.KeyVault/vaults", "AZURE", "KEY_VAULT"),
    ("compute.googleapis.com/Firewall", "GCP", "SECURITY_GROUP"),
    ("storage.googleapis.com/Bucket", "GCP", "GCS_BUCKET"),
    ("Firewall", "GCP", "SECURITY_GROUP"), ("Bucket", "GCP", "GCS_BUCKET"),
    ("Pod", "KUBERNETES", "CONTAINER_WORKLOAD"), ("ClusterRole", "KUBERNETES", "IAM_ROLE"),
    ("ServiceAccount", "KUBERNETES", "SERVICE_ACCOUNT"),
    ("KubernetesAPIServer", "KUBERNETES", "KUBERNETES_CLUSTER"),
])
def test_known_resource_types_map_to_asset_types(raw: str, provider: str, expected: str) -> None:
    assert asset_type_of(raw, provider) == expected


@pytest.mark.parametrize("raw", ["AwsRoleplayWidget", "Microsoft.Foo/bars", "", "Bucket"])
def test_unknown_types_are_none_not_a_substring_guess(raw: str) -> None:
    assert asset_type_of(raw, "AWS") is None
