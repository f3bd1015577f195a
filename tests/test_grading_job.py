"""The grading Job for Kubernetes (deploy/grading/): the API's schema, and what the schema cannot see.

The schema is Kubernetes's own OpenAPI schema of batch/v1 Job, as JSON schema
(the ``kubernetes-validate`` package, strict: an unknown field is an error), for
the oldest version the manifest is written for and the newest the package
knows. No cluster runs it here.
"""

from __future__ import annotations

import re
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from helpers.teacher import grade

ROOT = Path(__file__).resolve().parent.parent
JOB = ROOT / "deploy" / "grading" / "grade-job.yaml"
CLAIM = ROOT / "deploy" / "grading" / "grading-pvc.yaml"
DOCKERFILE = ROOT / "deploy" / "grading" / "Dockerfile"
# Options of the Job's command that python -m helpers.grade does not have yet (none now: --assignment came with
# issue 32, --shard with issue 37). An option the grader knows is parsed below like any other.
COMING: set[str] = set()


@pytest.fixture(scope="module")
def job() -> dict:
    return yaml.safe_load(JOB.read_text(encoding="utf-8"))


def container(job: dict) -> dict:
    (only,) = job["spec"]["template"]["spec"]["containers"]
    return only


def options(args: list[str]) -> dict[str, str]:
    return dict(arg.split("=", 1) for arg in args if arg.startswith("--"))


def assignment(job: dict) -> str:
    """The week the Job grades as written (kubectl set env ASSIGNMENT=... changes it)."""
    return next(env["value"] for env in container(job)["env"] if env["name"] == "ASSIGNMENT")


@pytest.mark.parametrize("version", ["1.33.0", kubernetes_validate.latest_version()])
def test_the_job_passes_the_kubernetes_schema_of_batch_v1_job(job, version):
    assert kubernetes_validate.validate(job, version, strict=True)


def test_the_schema_check_catches_a_misspelt_or_missing_field(job):
    misspelt = yaml.safe_load(JOB.read_text(encoding="utf-8"))
    container(misspelt)["volumeMount"] = container(misspelt).pop("volumeMounts")
    with pytest.raises(kubernetes_validate.ValidationError, match="volumeMount"):
        kubernetes_validate.validate(misspelt, "1.33.0", strict=True)
    nameless = yaml.safe_load(JOB.read_text(encoding="utf-8"))
    del container(nameless)["name"]
    with pytest.raises(kubernetes_validate.ValidationError, match="'name' is a required property"):
        kubernetes_validate.validate(nameless, "1.33.0", strict=True)


def test_each_index_grades_its_shard_into_a_folder_of_its_own(job):
    spec = job["spec"]
    assert (job["apiVersion"], job["kind"], spec["completionMode"]) == ("batch/v1", "Job", "Indexed")
    assert spec["template"]["spec"]["restartPolicy"] == "Never", "a Job's pods never restart in place"
    assert 1 <= spec["parallelism"] <= spec["completions"]
    given = options(container(job)["args"])
    shard = re.fullmatch(r"\$\(JOB_COMPLETION_INDEX\)/(\d+)", given["--shard"])
    assert shard and int(shard[1]) == spec["completions"], "--shard K/N with N = completions"
    assert given["--out"].endswith("$(JOB_COMPLETION_INDEX)"), "one output folder per shard"
    assert given["--out"].startswith("/out/$(ASSIGNMENT)/"), "and one folder per assignment"
    mounts = {mount["mountPath"]: mount for mount in container(job)["volumeMounts"]}
    assert mounts["/submissions"]["subPathExpr"] == "submissions/$(ASSIGNMENT)", "that assignment's hand-ins"
    assert given["--sandbox"] == "bwrap", "a pod that cannot sandbox stops, never grades unsandboxed"
    assert container(job)["command"] == ["python", "-m", "helpers.grade"]


def test_the_hand_ins_and_the_key_are_read_only_and_only_the_output_is_written(job):
    pod = job["spec"]["template"]["spec"]
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    mounts = {mount["mountPath"]: mount for mount in container(job)["volumeMounts"]}
    assert all(mount["name"] in volumes for mount in mounts.values())
    assert mounts["/submissions"].get("readOnly") and mounts["/teacher"].get("readOnly")
    assert "secret" in volumes[mounts["/teacher"]["name"]], "the key travels as a Secret"
    assert not mounts["/out"].get("readOnly")
    args = container(job)["args"]
    paths = [args[0], *(value for value in options(args).values() if value.startswith("/"))]
    for path in paths:
        assert any(path == root or path.startswith(root + "/") for root in mounts), f"{path} is on no volume"
    assert container(job)["securityContext"]["readOnlyRootFilesystem"] and "/tmp" in mounts
    assert pod["automountServiceAccountToken"] is False


def test_the_jobs_command_line_is_the_graders(job, tmp_path, capsys):
    with pytest.raises(SystemExit):
        grade.parse_args(["--help"])
    known = set(re.findall(r"--[a-z][a-z-]+", capsys.readouterr().out))
    args = container(job)["args"]
    used = set(options(args))
    assert used - known <= COMING, f"options the grader does not have: {sorted(used - known - COMING)}"
    here = {"/submissions": tmp_path / "submissions", "/teacher": tmp_path / "teacher", "/out": tmp_path / "out",
            "/exercises": tmp_path / "exercises"}
    for folder in here.values():
        folder.mkdir()
    (here["/teacher"] / "week3.json").write_text("{}")  # the manifest, under the teacher's own file name
    (here["/teacher"] / "course.secret").write_text("00")

    def local(value: str) -> str:
        value = value.replace("$(JOB_COMPLETION_INDEX)", "2").replace("$(ASSIGNMENT)", assignment(job))
        for inside, outside in here.items():
            if value == inside or value.startswith(inside + "/"):
                return str(outside) + value[len(inside):]
        return value

    parsed = grade.parse_args([local(args[0])] + [
        f"{name}={local(value)}" for name, value in options(args).items() if name in known
    ])
    assert parsed.submissions == here["/submissions"]
    assert parsed.out == (here["/out"] / assignment(job) / "shard-2").resolve()
    assert (parsed.jobs, parsed.sandbox) == (2, "bwrap")
    assert parsed.secret == here["/teacher"] / "course.secret"
    assert parsed.assignment == here["/teacher"] / "week3.json", "the one manifest of the Secret, its name kept"
    assert parsed.exercises == [], "no exercise file: the optional Secret's folder is empty"
    assert parsed.shard == (2, job["spec"]["completions"]), "--shard 2/N, parsed as shard 2 of N"


def test_the_image_is_the_hubs_with_bubblewrap_and_helpers_outside_site_packages():
    text = DOCKERFILE.read_text(encoding="utf-8")
    hub = yaml.safe_load((ROOT / "deploy" / "jupyterhub" / "z2jh-values.yaml").read_text())["singleuser"]["image"]
    assert f"ARG HUB_IMAGE={hub['name']}:{hub['tag']}\nFROM ${{HUB_IMAGE}}" in text
    assert re.search(r"apt-get install [^\n]*\bbubblewrap\b", text)
    project = re.search(r'^name = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), flags=re.M)[1]
    assert f"pip uninstall -y {project}" in text, "the answer key must leave the site-packages bwrap shows"
    workdir = re.search(r"^WORKDIR (\S+)$", text, flags=re.M)[1]
    for folder in ("helpers", "data"):
        assert f"COPY {folder} {workdir}/{folder}\n" in text
    assert 'ENTRYPOINT ["python", "-m", "helpers.grade"]' in text


def test_the_teachers_guide_shows_release_the_job_and_the_merge_the_grader_accepts(job, tmp_path):
    guide = (ROOT / "docs" / "teachers.md").read_text(encoding="utf-8")
    part = guide.split("### Grading a course on the cluster", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = " ".join(part.replace("\\\n", " ").split("\n"))
    assert "-m helpers.release class/ --assignment" in commands and "--manifest" in commands
    week = re.search(r"kubectl set env --local -f deploy/grading/grade-job\.yaml ASSIGNMENT=(\w+) -o yaml \| "
                     r"kubectl -n class apply -f -", commands)
    assert week, "the Job applied for one assignment"
    assert "kubectl -n class apply -f deploy/grading/grading-pvc.yaml" in commands
    assert f"--from-file=$HOME/grading/{week[1]}.json" in commands, "the manifest keeps the teacher's file name"
    merge = re.search(r"python -m helpers\.grade (--merge [^#]*?)(?:#|$)", commands)
    assert merge, "the merge command"
    words = merge[1].split()
    folders = [word for word in words[1:] if word.startswith("/out/")]
    assert len(folders) == job["spec"]["completions"] + 1, "OUT, then one folder per shard of the Job"
    given = options(container(job)["args"])
    assert [folder.replace("/out/", "") for folder in folders[1:]] == [
        given["--out"].replace("/out/", "").replace("$(JOB_COMPLETION_INDEX)", str(k)).replace("$(ASSIGNMENT)", week[1])
        for k in range(job["spec"]["completions"])], "the folders the Job's pods write"
    for folder in folders[1:]:
        (tmp_path / folder.strip("/")).mkdir(parents=True)
    parsed = grade.parse_args([str(tmp_path / word.strip("/")) if word.startswith("/") else word for word in words])
    assert parsed.out == (tmp_path / "out" / week[1] / "merged").resolve()
    assert len(parsed.shards) == len(folders) - 1


def test_the_volume_claim_is_a_valid_shared_claim_the_job_mounts(job):
    claim = yaml.safe_load(CLAIM.read_text(encoding="utf-8"))
    assert kubernetes_validate.validate(claim, "1.33.0", strict=True)
    assert (claim["kind"], claim["spec"]["accessModes"]) == ("PersistentVolumeClaim", ["ReadWriteMany"])
    volumes = {volume["name"]: volume for volume in job["spec"]["template"]["spec"]["volumes"]}
    assert volumes["grading"]["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    assert claim["metadata"]["namespace"] == job["metadata"]["namespace"]


def test_out_is_made_writable_by_the_images_user_and_the_exercise_file_is_optional(job):
    pod = job["spec"]["template"]["spec"]
    user = int(re.search(r"^USER (\d+)$", DOCKERFILE.read_text(encoding="utf-8"), flags=re.M)[1])
    assert pod["securityContext"]["runAsUser"] == pod["securityContext"]["fsGroup"] == user
    (init,) = pod["initContainers"]
    script = init["command"][-1]
    assert 'mkdir -p "/out/$ASSIGNMENT"' in script and f'chown {user}:{user} /out "/out/$ASSIGNMENT"' in script
    assert {env["name"]: env["value"] for env in init["env"]}["ASSIGNMENT"] == assignment(job), "the same week"
    assert [mount["subPath"] for mount in init["volumeMounts"] if mount["mountPath"] == "/out"] == ["out"]
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    assert volumes["exercises"]["secret"]["optional"] is True
    assert options(container(job)["args"])["--exercises"] == "/exercises"


def test_assignment_and_exercises_may_name_a_folder(tmp_path):
    from helpers.teacher.manifest import manifest_in

    (tmp_path / "key").mkdir()
    (tmp_path / "key" / "course.secret").write_text("00")
    with pytest.raises(ValueError, match="exactly one manifest"):
        manifest_in(tmp_path / "key")
    (tmp_path / "key" / "week3.json").write_text("{}")
    assert manifest_in(tmp_path / "key") == tmp_path / "key" / "week3.json"
    assert manifest_in(tmp_path / "key" / "week3.json") == tmp_path / "key" / "week3.json"
    (tmp_path / "key" / "week2.json").write_text("{}")
    with pytest.raises(ValueError, match="not week2.json, week3.json"):
        manifest_in(tmp_path / "key")
    (tmp_path / "mine").mkdir()
    assert grade.exercise_files([tmp_path / "mine"]) == []
    for name in ("b.py", "a.py", ".hidden.py", "notes.txt"):
        (tmp_path / "mine" / name).write_text("")
    assert grade.exercise_files([tmp_path / "mine", tmp_path / "x.py"]) == [
        tmp_path / "mine" / "a.py", tmp_path / "mine" / "b.py", tmp_path / "x.py"]
