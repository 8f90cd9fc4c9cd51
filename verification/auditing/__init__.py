"""Privacy auditing: the threshold auditor, the ε estimators, sample-size planning and the construction
of neighbouring datasets."""
