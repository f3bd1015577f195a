"""The learners' kernel on a class's hub: IPython's kernel, except that a kernel which cannot start ends at once.

Learners' servers on one machine choose their kernels' ports before the kernels
bind them, and now and then another server's kernel binds one first. ipykernel 7
then prints the error and waits for ever on its way out (it closes every socket but
the one it failed to bind, then waits for that one), and Jupyter restarts only a
kernel whose process has ended: the learner's notebook would say "connecting" until
they closed it. Ended, it is restarted on new ports within seconds
(``--KernelManager.cache_ports=False`` in deploy/jupyterhub/jupyterhub_config.py).

Run as a script from its kernelspec's folder (never ``-m helpers...``), so the
folder a notebook opens in is not searched for what starts the kernel.
"""

import os
import sys
import traceback

from ipykernel.kernelapp import IPKernelApp


def main() -> None:
    """Start the kernel as ``python -m ipykernel_launcher`` does; end the process when it cannot start."""
    app = IPKernelApp.instance()
    try:
        app.initialize(sys.argv[1:])
    except Exception:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)  # not sys.exit(): ipykernel's exit handler is what waits for ever
    app.start()


if __name__ == "__main__":
    del sys.path[0]  # this folder: the kernel puts the notebook's folder first itself, as ipykernel_launcher's does
    main()
