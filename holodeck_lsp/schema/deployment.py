"""`deployment:` — how `holodeck deploy` builds the container image and where it runs it."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Self

from pydantic import Field, field_validator, model_validator

from holodeck_lsp.schema.base import StrictModel, fault
from holodeck_lsp.schema.codes import Code

# Python `re` on purpose (not Field(pattern=)): these checks must agree with HoloDeck's,
# including how `$` treats a trailing newline.
_REPOSITORY = re.compile(r"^[a-z0-9][a-z0-9._/-]*[a-z0-9]$|^[a-z0-9]$")
_ROLE_ARN = re.compile(r"^arn:aws:iam::\d{12}:role/[\w+=,.@-]+$")
_GCP_PROJECT = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")
_GCP_MEMORY = re.compile(r"^\d+(Mi|Gi)$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)

#: vCPU sizes Azure Container Apps offers.
AZURE_CPU_CHOICES: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0)


class TagStrategy(StrEnum):
    """How the image tag is chosen."""

    GIT_SHA = "git_sha"
    GIT_TAG = "git_tag"
    LATEST = "latest"
    CUSTOM = "custom"


class CloudProvider(StrEnum):
    """Cloud the agent is deployed to."""

    AWS = "aws"
    GCP = "gcp"
    AZURE = "azure"


class RuntimeType(StrEnum):
    """How the agent is packaged."""

    CONTAINER = "container"


class ProtocolType(StrEnum):
    """API the deployed agent serves."""

    REST = "rest"
    AG_UI = "ag-ui"
    BOTH = "both"


class RegistryConfig(StrictModel):
    """Container registry the image is pushed to."""

    url: str = Field(description="Registry host, e.g. `ghcr.io` or an ECR URL. Required.")
    repository: str = Field(
        description="Image repository, e.g. `my-org/my-agent`: lower-case letters, digits, "
        "`.`, `_`, `/` and `-`, starting and ending with a letter or digit. Required."
    )
    tag_strategy: TagStrategy = Field(
        default=TagStrategy.GIT_SHA,
        description="Image tag: `git_sha`, `git_tag`, `latest` or `custom` (then set "
        "`custom_tag`). Default `git_sha`.",
    )
    custom_tag: str | None = Field(
        default=None, description="The tag to use; required when tag_strategy is `custom`."
    )
    credentials_env_prefix: str | None = Field(
        default=None,
        description="Prefix of the environment variables holding the registry credentials.",
    )

    @field_validator("repository")
    @classmethod
    def _repository_form(cls, value: str) -> str:
        if not _REPOSITORY.match(value):
            raise fault(
                Code.PATTERN_MISMATCH,
                f"invalid repository name {value!r}: use lower-case letters, digits, '.', "
                "'_', '/' and '-', starting and ending with a letter or digit",
            )
        return value

    @model_validator(mode="after")
    def _custom_needs_tag(self) -> Self:
        if self.tag_strategy is TagStrategy.CUSTOM and not self.custom_tag:
            raise fault(
                Code.MISSING_FIELD,
                "tag_strategy custom needs `custom_tag:` (the image tag to use)",
                at="tag_strategy",
            )
        return self


class AWSAppRunnerConfig(StrictModel):
    """AWS App Runner service settings."""

    region: str = Field(description="AWS region, e.g. `us-east-1`. Required.")
    cpu: int = Field(
        default=1, description="vCPUs for the service (App Runner: 1, 2 or 4). Default 1."
    )
    memory: int = Field(
        default=2048,
        description="Memory in MB (App Runner: 2048, 3072, 4096, 8192 or 12288). Default 2048.",
    )
    ecr_role_arn: str | None = Field(
        default=None,
        description="IAM role App Runner uses to pull from ECR, in the form "
        "`arn:aws:iam::<12-digit account>:role/<name>`.",
    )
    health_check_path: str = Field(
        default="/health", description="Path App Runner polls for health. Default /health."
    )
    auto_scaling_min: int = Field(
        default=1, ge=1, le=25, description="Fewest instances, 1–25. Default 1."
    )
    auto_scaling_max: int = Field(
        default=5,
        ge=1,
        le=25,
        description="Most instances, 1–25, not below auto_scaling_min. Default 5.",
    )

    @field_validator("ecr_role_arn")
    @classmethod
    def _role_arn_form(cls, value: str | None) -> str | None:
        if value is not None and not _ROLE_ARN.match(value):
            raise fault(
                Code.PATTERN_MISMATCH,
                f"{value!r} is not an IAM role ARN; expected "
                "arn:aws:iam::<12-digit account id>:role/<role name>",
            )
        return value

    @model_validator(mode="after")
    def _scaling_order(self) -> Self:
        if self.auto_scaling_min > self.auto_scaling_max:
            raise fault(
                Code.OUT_OF_RANGE,
                f"auto_scaling_min ({self.auto_scaling_min}) is above auto_scaling_max "
                f"({self.auto_scaling_max})",
                at="auto_scaling_min",
            )
        return self


class GCPCloudRunConfig(StrictModel):
    """Google Cloud Run service settings."""

    project_id: str = Field(
        description="GCP project id: 6–30 lower-case letters, digits and hyphens, starting "
        "with a letter and not ending with a hyphen. Required."
    )
    region: str = Field(default="us-central1", description="Cloud Run region. Default us-central1.")
    memory: str = Field(
        default="512Mi",
        description="Memory per instance: a whole number followed by Mi or Gi, e.g. `1Gi`. "
        "Default 512Mi.",
    )
    cpu: int = Field(default=1, description="vCPUs per instance. Default 1.")
    concurrency: int = Field(
        default=80,
        ge=1,
        le=1000,
        description="Requests one instance handles at once, 1–1000. Default 80.",
    )
    timeout: int = Field(
        default=300, ge=1, le=3600, description="Request timeout in seconds, 1–3600. Default 300."
    )
    min_instances: int = Field(default=0, ge=0, description="Fewest instances (≥ 0). Default 0.")
    max_instances: int = Field(default=100, ge=1, description="Most instances (≥ 1). Default 100.")

    @field_validator("project_id")
    @classmethod
    def _project_id_form(cls, value: str) -> str:
        if not _GCP_PROJECT.match(value):
            raise fault(
                Code.PATTERN_MISMATCH,
                f"{value!r} is not a GCP project id: 6–30 lower-case letters, digits and "
                "hyphens, starting with a letter and not ending with a hyphen",
            )
        return value

    @field_validator("memory")
    @classmethod
    def _memory_form(cls, value: str) -> str:
        if not _GCP_MEMORY.match(value):
            raise fault(
                Code.PATTERN_MISMATCH,
                f"memory {value!r} must be a whole number followed by Mi or Gi, e.g. 512Mi",
            )
        return value


class AzureContainerAppsConfig(StrictModel):
    """Azure Container Apps settings."""

    subscription_id: str = Field(description="Azure subscription id (a UUID). Required.")
    resource_group: str = Field(description="Resource group to deploy into. Required.")
    environment_name: str | None = Field(
        default=None, description="Container Apps environment to use."
    )
    location: str = Field(default="eastus", description="Azure region. Default eastus.")
    cpu: float = Field(
        default=1.0,
        description="vCPUs per replica: 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75 or 2.0. Default 1.0.",
    )
    memory: str = Field(
        default="2Gi",
        description="Memory per replica, e.g. `2Gi`; Azure expects twice the vCPU count in "
        "Gi. Default 2Gi.",
    )
    ingress_external: bool = Field(
        default=False,
        description="Make the app reachable from the internet. Default false (internal only).",
    )
    min_replicas: int = Field(default=0, ge=0, description="Fewest replicas (≥ 0). Default 0.")
    max_replicas: int = Field(default=10, ge=1, description="Most replicas (≥ 1). Default 10.")

    @field_validator("subscription_id")
    @classmethod
    def _subscription_is_uuid(cls, value: str) -> str:
        if not _UUID.match(value):
            raise fault(
                Code.PATTERN_MISMATCH,
                f"{value!r} is not a subscription id; expected a UUID like "
                "00000000-0000-0000-0000-000000000000",
            )
        return value

    @field_validator("cpu")
    @classmethod
    def _cpu_size(cls, value: float) -> float:
        if value not in AZURE_CPU_CHOICES:
            raise fault(
                Code.INVALID_CHOICE,
                f"cpu {value:g} is not offered; use one of "
                f"{', '.join(f'{c:g}' for c in AZURE_CPU_CHOICES)}",
            )
        return value


class CloudTargetConfig(StrictModel):
    """The cloud and its service settings; only the block of the chosen provider may appear."""

    provider: CloudProvider = Field(
        description="`aws`, `gcp` or `azure`; the block of the same name is required. Required."
    )
    aws: AWSAppRunnerConfig | None = Field(
        default=None, description="AWS App Runner settings; required when provider is aws."
    )
    gcp: GCPCloudRunConfig | None = Field(
        default=None, description="Google Cloud Run settings; required when provider is gcp."
    )
    azure: AzureContainerAppsConfig | None = Field(
        default=None,
        description="Azure Container Apps settings; required when provider is azure.",
    )

    @model_validator(mode="after")
    def _blocks_match_provider(self) -> Self:
        chosen = self.provider.value
        if getattr(self, chosen) is None:
            raise fault(
                Code.MISSING_FIELD,
                f"provider {chosen} needs a `{chosen}:` block with its settings",
                at="provider",
            )
        for other in ("aws", "gcp", "azure"):
            if other != chosen and getattr(self, other) is not None:
                raise fault(
                    Code.EXCLUSIVE_FIELDS,
                    f"`{other}:` does not apply when provider is {chosen}; remove it",
                    at=other,
                )
        return self


class DeploymentConfig(StrictModel):
    """Container build and cloud deployment settings."""

    runtime: RuntimeType = Field(
        default=RuntimeType.CONTAINER, description="Packaging; only `container`. Default."
    )
    registry: RegistryConfig = Field(description="Registry the image is pushed to. Required.")
    target: CloudTargetConfig = Field(description="Cloud to deploy to. Required.")
    protocol: ProtocolType = Field(
        default=ProtocolType.REST,
        description="API served: `rest`, `ag-ui` or `both`. Default `rest`.",
    )
    port: int = Field(
        default=8080, ge=1, le=65535, description="Port the container listens on. Default 8080."
    )
    health_check_path: str = Field(
        default="/health", description="HTTP path answering health checks. Default /health."
    )
    environment: dict[str, str] = Field(
        default_factory=dict, description="Environment variables set in the container."
    )
    platform: str = Field(
        default="linux/amd64",
        description="Image platform, e.g. `linux/amd64` or `linux/arm64`. Default linux/amd64.",
    )
