"""dpsco.verification: auditors, statistical checks, the catalogue, the campaign runner and the CLI."""
