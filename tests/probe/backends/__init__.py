"""Engine backends, tested in-process against the real engines (no server)."""
