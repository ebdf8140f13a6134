"""BFCL multi-turn classes (Apache-2.0, see LICENSE and NOTICE in this folder)."""
