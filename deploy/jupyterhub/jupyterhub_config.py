"""JupyterHub for a class working through "Ranking metrics by hand" (README: "A class on JupyterHub").

One shared environment, installed by an administrator and read-only to learners,
holds the hub, JupyterLab, Voilà, nbgitpuller and ``helpers`` installed as a
package (not editable). Each learner's lessons live in their own home, pulled
there by nbgitpuller, so their edits never touch anyone else's copy.

The helpers installed decide the kind of class. A practice class installs the
project's helpers (``pip install .``): ``check`` judges, ``hint``, ``solution``
and ``reveal`` work, and the teacher's exercise files in ``exercises/`` reach
every server. A graded class installs the keyless helpers of the assignment
release (``pip install class/``, the folder ``python -m helpers.release
--assignment`` wrote): no answer key anywhere in the learners' environment,
``check`` only records, and the teacher's exercise files never reach a server;
this file refuses to start if they sit where learners could read them.

Run it (as root, from the project's folder)::

    /opt/ranking-metrics/bin/jupyterhub -f deploy/jupyterhub/jupyterhub_config.py

On The Littlest JupyterHub, copy this file into
``/opt/tljh/config/jupyterhub_config.d/`` and set ``RANKING_METRICS_ENV=/opt/tljh/user``
for the hub (TLJH sets the authenticator, the spawner and the port itself).

Who logs in, and as whom: this file keeps JupyterHub's defaults, which is what a
real deployment needs: the PAM authenticator (the machine's accounts) and
LocalProcessSpawner (each learner's server runs as their own system account;
TLJH uses SystemdSpawner, Kubernetes KubeSpawner). Replace the authenticator
with your institution's (LTI from the LMS, OAuth/SAML, LDAP). The project's
tests (tests/test_hub.py) load this file and swap in a test authenticator and
SimpleLocalProcessSpawner, which switches no user and isolates nothing: never
use those two for a class.
"""

import os
import subprocess
import sys
from collections import deque
from pathlib import Path

from jupyterhub.utils import random_port

c = get_config()  # noqa: F821 (JupyterHub provides get_config while it reads this file)

# --- what a teacher sets ---------------------------------------------------------------------

# The shared environment of the learners' servers: by default the one running the hub.
SHARED_ENV = Path(os.environ.get("RANKING_METRICS_ENV", sys.prefix))
# Hub users who are teachers (admins: they add learners, and only they are left out when collecting).
TEACHERS = {"teacher"}
# Every *.py here is a teacher's exercise file (python -m helpers.release --exercises), read by each new server.
EXERCISES_DIR = Path(os.environ.get("RANKING_METRICS_EXERCISES", SHARED_ENV / "exercises"))
# A learner's server with no activity for this long is stopped (their files stay in their home).
CULL_IDLE_SECONDS = 3600
# Memory per learner's server: enforced by SystemdSpawner (TLJH) and KubeSpawner; measured use is in the README.
MEMORY_LIMIT = "1G"

# --- the learners' servers -----------------------------------------------------------------------


# The learners' python3 kernel (in helpers/teacher/hub, found through JUPYTER_PATH): a kernel that cannot bind its
# ports ends, so Jupyter restarts it (below); ipykernel's own would wait for ever (see its start_or_end.py).
LAB_KERNEL = Path("hub", "kernels", "python3", "kernel.json")


def installed_helpers(python: Path) -> tuple[str, str]:
    """Asked of the shared environment's own Python: the folder of Voilà's classroom template, and the class's
    kind ('practice': helpers with its answer key; 'assignment': the keyless helpers of an assignment release)."""
    code = ("import helpers.teacher.classroom as c, helpers.exercises.questions as q; "
            "print(c.TEMPLATES_ROOT); print('assignment' if q.is_assignment_copy() else 'practice')")
    try:
        found = subprocess.run([str(python), "-P", "-c", code], capture_output=True, text=True, timeout=120,
                               check=True)  # -P: the environment's helpers, never one in the current folder
    except (OSError, subprocess.SubprocessError) as error:
        raise RuntimeError(
            f"helpers is not installed in {SHARED_ENV} ({error}): run "
            f"{SHARED_ENV}/bin/pip install -r deploy/jupyterhub/requirements.txt . from the project's folder"
        ) from None
    folder, kind = found.stdout.split()[-2:]
    if not (Path(folder) / "voila" / "templates" / "classroom").is_dir():
        raise RuntimeError(f"no Voilà classroom template under {folder}: reinstall helpers in {SHARED_ENV}")
    if not (Path(folder) / LAB_KERNEL).is_file():
        raise RuntimeError(f"no {LAB_KERNEL} under {folder}: reinstall helpers in {SHARED_ENV}")
    return folder, kind


def readable_by_learners(path: Path) -> bool:
    """True when another account can read the file: it and every folder above it open to others."""
    try:
        if not path.stat().st_mode & 0o004:
            return False
        return all(folder.stat().st_mode & 0o001 for folder in path.resolve().parents)
    except OSError:
        return False


def exercises_out_of_reach(kind: str) -> None:
    """In a graded class, refuse to start while a teacher's exercise file (its answer key) is readable by learners."""
    exposed = [path for path in sorted(EXERCISES_DIR.glob("*.py")) if readable_by_learners(path)]
    if kind == "assignment" and exposed:
        raise RuntimeError(
            f"a graded class: learners could read your exercise files {', '.join(map(str, exposed))}. Keep them in "
            "a folder only you can read (chmod 700, outside the shared environment) and pass them to "
            "python -m helpers.grade --exercises"
        )


def teacher_exercise_files(spawner) -> str:
    """$HELPERS_EXERCISES for a server starting now: the teacher's exercise files of EXERCISES_DIR."""
    return os.pathsep.join(str(path) for path in sorted(EXERCISES_DIR.glob("*.py")))


TEMPLATES, CLASS_KIND = installed_helpers(SHARED_ENV / "bin" / "python")
exercises_out_of_reach(CLASS_KIND)


# Ports handed to servers that may not have bound them yet. JupyterHub finds a free port for each server and lets
# go of it before the server binds it, so two learners starting at the same moment can be handed the same port: the
# second server cannot start, and the hub takes the first learner's server for the second's (seen with ten learners
# at once; jupyterhub/jupyterhub#3005). A port handed out in the last RECENT_PORTS starts is not handed out again.
RECENT_PORTS = 512
handed_out: deque[int] = deque(maxlen=RECENT_PORTS)


def a_port_of_its_own(spawner) -> None:
    """Give a server that is about to start a free port that no other starting server was given."""
    port = random_port()
    while port in handed_out:
        port = random_port()
    handed_out.append(port)
    spawner.port = port


c.Spawner.pre_spawn_hook = a_port_of_its_own
c.Spawner.cmd = [str(SHARED_ENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.notebook_dir = "~"  # each learner sees their own home, where nbgitpuller puts the lessons
c.Spawner.default_url = "/lab"
c.Spawner.environment = {
    # Voilà finds the classroom template (/user/<name>/voila/render/<lesson>?template=classroom), the lab its kernel
    "JUPYTER_PATH": os.pathsep.join([TEMPLATES, str(Path(TEMPLATES) / LAB_KERNEL.parts[0])]),
}
if CLASS_KIND == "practice":  # a graded class's servers never get the teacher's exercise files (the answer key)
    c.Spawner.environment["HELPERS_EXERCISES"] = teacher_exercise_files
c.Spawner.mem_limit = MEMORY_LIMIT
# Learners' servers on one machine start kernels at the same minute, and a kernel's TCP ports are picked before it
# binds them: now and then another server's kernel takes one first. Jupyter then restarts the kernel, but with its
# ports cached it restarts on the same ports and never comes up ("Kernel does not exist" in the lab). Uncached, each
# restart picks new ones, so the learner sees one restart; the kernel of LAB_KERNEL ends when it cannot bind, which
# is what Jupyter waits for. The server follows the restarted kernel to its new ports (helpers/teacher/hub_kernels.py):
# jupyter_server alone goes on watching the old ones, and the lab never connects. (Kubernetes gives each server its
# own ports: no race.)
c.Spawner.args = [
    "--KernelManager.cache_ports=False",
    "--MappingKernelManager.kernel_manager_class=helpers.teacher.hub_kernels.FollowedToNewPorts",
]
# a class starting at the same minute: servers queue for the CPU, so allow them time to come up
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180

# --- who may log in --------------------------------------------------------------------------------

# c.JupyterHub.authenticator_class = "ltiauthenticator.lti13.authenticator.LTI13Authenticator"  # e.g., from the LMS
c.Authenticator.admin_users = TEACHERS
# Learners the teacher adds (admin page, or POST /hub/api/users) may log in; nobody else.
c.Authenticator.allow_existing_users = True

# --- idle servers are stopped: jupyterhub-idle-culler, run by the hub as a service --------------------

c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "description": "find idle servers and stop them",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }
]
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={CULL_IDLE_SECONDS}"],
    }
]
