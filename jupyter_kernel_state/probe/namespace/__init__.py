"""The user namespace as the probe lists it: which names are visible (``visibility``) and
in which order (``ordering``)."""
