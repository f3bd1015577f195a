"""The learners' servers on a class's hub: a kernel started again on new ports is followed to them.

A learner's kernel that cannot bind one of its ports (another server's kernel took
it first) ends, and Jupyter's restarter starts it again on new ports (see
hub/kernels/python3/start_or_end.py). The server, though, still listens for the
kernel's status on the old ports: its state stays "starting", and every connection
the lab opens waits for it, gives up after a minute and closes, so the notebook
never connects. jupyter_server moves its watch to the new ports when a restart is
asked for through its API, not when the restarter does it (jupyter_server#482);
this kernel manager does it then too. deploy/jupyterhub/jupyterhub_config.py gives
it to the learners' servers.
"""

from __future__ import annotations

from typing import Any

from jupyter_server.services.kernels.kernelmanager import ServerKernelManager


class FollowedToNewPorts(ServerKernelManager):
    """A learner's kernel whose server follows it to the new ports the restarter gives it."""

    # jupyter_client types restart_kernel as its blocking wrapper; a server's kernel manager has the coroutine
    async def restart_kernel(  # type: ignore[override]
        self, now: bool = False, newports: bool = False, **kwargs: Any
    ) -> None:
        await super().restart_kernel(now=now, newports=newports, **kwargs)
        if newports:
            self.follow_to_new_ports()

    def follow_to_new_ports(self) -> None:
        """Watch the kernel's status on its new ports, and end a wait for a reply that would come on the old."""
        kernels = self.parent  # the server's kernels (its MappingKernelManager), which watch each one's status
        if kernels is None or self.kernel_id not in kernels:
            return
        kernels.stop_watching_activity(self.kernel_id)
        self.execution_state = "starting"
        kernels.start_watching_activity(self.kernel_id)
        # a connection opened before the restart asked for kernel_info on the old shell port: no reply can come, so
        # it goes on as after its own timeout (with the server's protocol version), a minute sooner
        asked = getattr(self, "_kernel_info_future", None)
        if asked is not None and not asked.done():
            asked.set_result({})
