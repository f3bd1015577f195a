"""A real JupyterHub for the hub tests (tests/test_hub.py) and the hub benchmark (benchmarks/bench_hub.py).

:mod:`tests.hub.classhub` starts JupyterHub 5 with its proxy from the project's
own ``deploy/jupyterhub/jupyterhub_config.py``, a test authenticator and a
spawner that switches no user; :mod:`tests.hub.kernel` runs code in a learner's
kernel through the hub, over the kernel's websocket.
"""
