"""The domain: the project's own picture of a cluster and its groups, assignments, the coordinator
hash, snapshots, and the group state built from what a cluster answers."""
