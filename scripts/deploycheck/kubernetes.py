"""deploy/kubernetes/*.yaml: every manifest valid against the Kubernetes API's schemas
(kubernetes-validate, offline), of a kind this checker knows, and together a deployment of the
gateway: web pods behind a Service with --no-workers, a worker Deployment, PodDisruptionBudgets
that allow drains. The gateway containers themselves: pods.py."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate

from .context import Context
from .dockerfile import DockerImage
from .pods import Pod, as_int, check_container
from .yamlfiles import YAMLError, as_list, read_yaml_documents

# The schemas the manifests are validated against: the oldest Kubernetes release still
# maintained upstream, so the manifests apply to any supported cluster.
KUBERNETES_VERSION = "1.33"
# The kinds whose content this checker understands (anything else would go unchecked).
KNOWN_KINDS = {
    ("v1", "Namespace"), ("v1", "ConfigMap"), ("v1", "Secret"), ("v1", "Service"), ("v1", "ServiceAccount"),
    ("apps/v1", "Deployment"), ("apps/v1", "StatefulSet"), ("policy/v1", "PodDisruptionBudget"),
    ("batch/v1", "Job"), ("batch/v1", "CronJob"), ("networking.k8s.io/v1", "Ingress"),
    ("networking.k8s.io/v1", "NetworkPolicy"), ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("kustomize.config.k8s.io/v1beta1", "Kustomization"),  # kustomize's, not the API server's: no schema
}


def labels_match(selector: dict, labels: dict) -> bool:
    return bool(selector) and all(str(labels.get(k)) == str(v) for k, v in selector.items())


def _schema_problem(doc: dict) -> str | None:
    """What the Kubernetes API's schema (strict: no unknown fields) finds wrong in a manifest."""
    try:
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as error:
        where = ".".join(str(part) for part in error.path)
        return f"{(where + ': ') if where else ''}{error.message} (Kubernetes {error.version} schema)"
    except kubernetes_validate.SchemaNotFoundError as error:
        return error.message
    return None


def _manifests(ctx: Context, folder: Path) -> dict[str, list[tuple[Path, dict]]] | None:
    """The documents of every manifest, by kind (None: there are none); unknown kinds and invalid
    manifests are problems."""
    problems = ctx.problems
    docs: list[tuple[Path, dict]] = []
    for path in sorted(folder.glob("*.y*ml")):
        try:
            docs += [(path, document) for document in read_yaml_documents(path.read_text(encoding="utf-8"))]
        except YAMLError as error:
            problems.append(f"{ctx.show(path)}: {error}")
    if not docs:
        problems.append(f"{ctx.show(folder)}: no manifests")
        return None
    by_kind: dict[str, list[tuple[Path, dict]]] = {}
    for path, doc in docs:
        where = ctx.show(path)
        if not isinstance(doc, dict):
            problems.append(f"{where}: a document that is not a mapping")
            continue
        kind, version = str(doc.get("kind", "")), str(doc.get("apiVersion", ""))
        if (version, kind) not in KNOWN_KINDS:
            known = sorted(f"{v} {k}" for v, k in KNOWN_KINDS if k == kind)
            problems.append(f"{where}: apiVersion {version!r} kind {kind!r} is not a known one"
                            + (f" (known: {', '.join(known)})" if known else ""))
            continue
        name = (doc.get("metadata") or {}).get("name")
        if kind != "Kustomization" and not name:
            problems.append(f"{where}: {kind} without metadata.name")
        if kind != "Kustomization":
            problem = _schema_problem(doc)
            if problem:
                problems.append(f"{where}: {kind} {name}: {problem}")
        by_kind.setdefault(kind, []).append((path, doc))
    return by_kind


def _kustomizations(ctx: Context, folder: Path, by_kind):
    for path, doc in by_kind.get("Kustomization", []):
        for resource in as_list(doc.get("resources")):
            if not (path.parent / str(resource)).exists():
                ctx.problems.append(f"{ctx.show(path)}: resource {resource} does not exist")
        listed = {str(r) for r in as_list(doc.get("resources"))}
        for other in sorted(folder.glob("*.y*ml")):
            if other.name != path.name and other.name not in listed and ".example." not in other.name:
                ctx.problems.append(f"{ctx.show(path)}: {other.name} is not in resources (name it *.example.yaml if it is a template)")


def _by_name(documents) -> dict[str, dict]:
    return {str(d["metadata"]["name"]): d for _, d in documents if (d.get("metadata") or {}).get("name")}


def _deployments(ctx: Context, folder: Path, by_kind, images: dict[Path, DockerImage], known_envs: set[str]) -> list[dict]:
    """Each Deployment (or StatefulSet) with its gateway containers checked."""
    problems = ctx.problems
    config_maps, secrets = _by_name(by_kind.get("ConfigMap", [])), _by_name(by_kind.get("Secret", []))
    gateway_image = next((image for image in images.values() if image.gateway_argv()), None)
    deployments = []
    for path, doc in by_kind.get("Deployment", []) + by_kind.get("StatefulSet", []):
        name = (doc.get("metadata") or {}).get("name")
        where = f"{ctx.show(path)}: {doc['kind']} {name}"
        spec = doc.get("spec") or {}
        selector = ((spec.get("selector") or {}).get("matchLabels")) or {}
        template = spec.get("template") or {}
        labels = ((template.get("metadata") or {}).get("labels")) or {}
        if not selector:
            problems.append(f"{where}: no spec.selector.matchLabels")
        elif not labels_match(selector, labels):
            problems.append(f"{where}: spec.selector.matchLabels {selector} does not match the pod template's labels {labels}")
        pod_spec = template.get("spec") or {}
        containers = pod_spec.get("containers") or []
        if not containers:
            problems.append(f"{where}: no containers")
        pod = Pod(ctx, folder, pod_spec, config_maps, secrets, known_envs)
        workers, listens = None, []
        for container in containers:
            if not isinstance(container, dict) or not container.get("name") or not container.get("image"):
                problems.append(f"{where}: a container without name or image")
                continue
            found = check_container(pod, f"{where}, container {container['name']}", container, gateway_image)
            if found is not None:
                listens.append(found)
                workers = found["workers"] if workers is None else workers or found["workers"]
        deployments.append({"where": where, "name": name, "labels": labels, "replicas": as_int(spec.get("replicas", 1)),
                            "workers": workers, "listens": listens, "path": path})
    return deployments


def _services(ctx: Context, by_kind, deployments: list[dict]) -> list[dict]:
    """The Services: each selects pods, web pods only, at the gateway's port. Returns the served Deployments."""
    problems = ctx.problems
    served = []
    for path, doc in by_kind.get("Service", []):
        where = f"{ctx.show(path)}: Service {(doc.get('metadata') or {}).get('name')}"
        spec = doc.get("spec") or {}
        selector = spec.get("selector") or {}
        selected = [d for d in deployments if labels_match(selector, d["labels"])]
        if not selector:
            problems.append(f"{where}: no selector")
        elif not selected:
            problems.append(f"{where}: selector {selector} matches no Deployment's pods")
        for deployment in selected:
            served.append(deployment)
            if deployment["workers"]:
                problems.append(f"{where} selects {deployment['where']}, which runs job workers: serve the API from pods with --no-workers")
        ports = as_list(spec.get("ports"))
        if not ports:
            problems.append(f"{where}: no ports")
        for port in ports:
            if not isinstance(port, dict) or not port.get("port"):
                problems.append(f"{where}: a port without port")
                continue
            target = str(port.get("targetPort", port["port"]))
            for deployment in selected:
                for listen in deployment["listens"]:
                    if listen["ports"].get(target, target) != listen["port"]:
                        problems.append(f"{where}: targetPort {target} of {deployment['where']} is not the gateway's port {listen['port']}")
    return served


def _disruption_budgets(ctx: Context, by_kind, deployments: list[dict], served: list[dict]):
    problems = ctx.problems
    covered = []
    for path, doc in by_kind.get("PodDisruptionBudget", []):
        where = f"{ctx.show(path)}: PodDisruptionBudget {(doc.get('metadata') or {}).get('name')}"
        spec = doc.get("spec") or {}
        if ("minAvailable" in spec) == ("maxUnavailable" in spec):
            problems.append(f"{where}: give exactly one of minAvailable and maxUnavailable")
        selector = ((spec.get("selector") or {}).get("matchLabels")) or {}
        selected = [d for d in deployments if labels_match(selector, d["labels"])]
        if not selected:
            problems.append(f"{where}: selector {selector} matches no Deployment's pods")
        covered += selected
        for deployment in selected:
            minimum = as_int(spec.get("minAvailable")) if "%" not in str(spec.get("minAvailable", "")) else None
            if minimum is not None and deployment["replicas"] is not None and minimum >= deployment["replicas"]:
                problems.append(f"{where}: minAvailable {minimum} with {deployment['replicas']} replicas blocks every drain")
            if "maxUnavailable" in spec and str(spec["maxUnavailable"]) in ("0", "0%"):
                problems.append(f"{where}: maxUnavailable 0 blocks every drain")
    for deployment in served:
        if deployment not in covered:
            problems.append(f"{deployment['where']}: the web pods have no PodDisruptionBudget")


def check_kubernetes(ctx: Context, folder: Path, images: dict[Path, DockerImage], known_envs: set[str]):
    by_kind = _manifests(ctx, folder)
    if by_kind is None:
        return
    _kustomizations(ctx, folder, by_kind)
    deployments = _deployments(ctx, folder, by_kind, images, known_envs)
    gateway_deployments = [d for d in deployments if d["workers"] is not None]
    if not gateway_deployments:
        ctx.problems.append(f"{ctx.show(folder)}: no Deployment runs the gateway")
    elif not any(d["workers"] for d in gateway_deployments):
        ctx.problems.append(f"{ctx.show(folder)}: every gateway Deployment runs --no-workers; no pod runs the jobs")
    served = _services(ctx, by_kind, deployments)
    if gateway_deployments and not served:
        ctx.problems.append(f"{ctx.show(folder)}: no Service selects the web pods")
    _disruption_budgets(ctx, by_kind, deployments, served)
