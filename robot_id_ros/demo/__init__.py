"""The one-command demo: the whole pipeline on the simulated youBot over real DDS."""
