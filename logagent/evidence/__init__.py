"""Evidence: anytime-valid e-processes and what they settle (PURE, numpy)."""
