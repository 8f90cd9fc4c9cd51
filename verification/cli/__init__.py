"""The command line: ``dpsco verify | audit | compare | plan``."""
