"""``java.util.HashMap``'s tree bins: a bucket of 9 or more keys in a table of 64 or more buckets
becomes a red-black tree ordered by hash, then by ``compareTo``; it still iterates along its
``next`` chain, but treeifying moves the tree's root to the head of the chain and a key inserted
into a tree is linked right after its tree parent (``TreeNode.treeify``, ``putTreeVal``,
``balanceInsertion``, ``rotateLeft``/``rotateRight``). Used by :mod:`kgroup.java.hashmap`.
"""
from __future__ import annotations

from typing import Any


class Node:
    """A HashMap node; tree-bin fields are used once its bucket is a tree."""

    __slots__ = ("key", "hash", "sort_key", "left", "right", "parent", "red")

    def __init__(self, key: Any, hash_: int, sort_key: object) -> None:
        self.key = key
        self.hash = hash_
        self.sort_key = sort_key
        self.left: Node | None = None
        self.right: Node | None = None
        self.parent: Node | None = None
        self.red = False


def _direction(node_hash: int, node_key: object, other: Node) -> int:
    """Where a node goes relative to ``other`` in a tree bin (-1 left, 1 right)."""
    if other.hash > node_hash:
        return -1
    if other.hash < node_hash:
        return 1
    if node_key is None or other.sort_key is None:
        # Java falls back to System.identityHashCode: not deterministic, not modelled
        raise NotImplementedError("tree bins of non-comparable keys are not deterministic in Java")
    return -1 if node_key < other.sort_key else 1  # type: ignore[operator]  # equal keys never meet here


def _rotate_left(root: Node, p: Node) -> Node:
    r = p.right
    if r is not None:
        rl = p.right = r.left
        if rl is not None:
            rl.parent = p
        pp = r.parent = p.parent
        if pp is None:
            root = r
            r.red = False
        elif pp.left is p:
            pp.left = r
        else:
            pp.right = r
        r.left = p
        p.parent = r
    return root


def _rotate_right(root: Node, p: Node) -> Node:
    left = p.left
    if left is not None:
        lr = p.left = left.right
        if lr is not None:
            lr.parent = p
        pp = left.parent = p.parent
        if pp is None:
            root = left
            left.red = False
        elif pp.right is p:
            pp.right = left
        else:
            pp.left = left
        left.right = p
        p.parent = left
    return root


def _balance_insertion(root: Node, x: Node) -> Node:
    """Red-black fix-up after inserting ``x`` (``TreeNode.balanceInsertion``)."""
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        xppl = xpp.left
        if xp is xppl:
            xppr = xpp.right
            if xppr is not None and xppr.red:
                xppr.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.right:
                    x = xp
                    root = _rotate_left(root, x)
                    xp = x.parent
                    xpp = None if xp is None else xp.parent
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_right(root, xpp)
        else:
            if xppl is not None and xppl.red:
                xppl.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.left:
                    x = xp
                    root = _rotate_right(root, x)
                    xp = x.parent
                    xpp = None if xp is None else xp.parent
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_left(root, xpp)


class Bin:
    """One bucket: the ``next`` chain (iteration order) plus, for a tree bin, the tree's root."""

    __slots__ = ("chain", "root")

    def __init__(self, chain: list[Node]) -> None:
        self.chain = chain
        self.root: Node | None = None

    def treeify(self) -> None:
        """``TreeNode.treeify``: build the tree in chain order, then move its root to the front."""
        root: Node | None = None
        for x in self.chain:
            x.left = x.right = None
            if root is None:
                x.parent = None
                x.red = False
                root = x
                continue
            p = root
            while True:
                direction = _direction(x.hash, x.sort_key, p)
                xp = p
                child = p.left if direction <= 0 else p.right
                if child is None:
                    x.parent = xp
                    if direction <= 0:
                        xp.left = x
                    else:
                        xp.right = x
                    root = _balance_insertion(root, x)
                    break
                p = child
        self.root = root
        self._move_root_to_front()

    def _move_root_to_front(self) -> None:
        root = self.root
        if root is not None and self.chain[0] is not root:
            self.chain.remove(root)
            self.chain.insert(0, root)

    def put_tree_val(self, x: Node) -> None:
        """``TreeNode.putTreeVal`` for a new key: linked right after its tree parent."""
        assert self.root is not None
        p = self.root
        while True:
            direction = _direction(x.hash, x.sort_key, p)
            xp = p
            child = p.left if direction <= 0 else p.right
            if child is None:
                self.chain.insert(self.chain.index(xp) + 1, x)
                if direction <= 0:
                    xp.left = x
                else:
                    xp.right = x
                x.parent = xp
                self.root = _balance_insertion(self.root, x)
                self._move_root_to_front()
                return
            p = child

    def untreeify(self) -> None:
        self.root = None
        for node in self.chain:
            node.left = node.right = node.parent = None
