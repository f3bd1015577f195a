"""Real-browser tests of the interactive lessons (JupyterLab and Voilà in headless Chromium)."""
