"""Stands in for tsne-mp's `tsne` module, which is on no package index this machine reaches. TS-VIS's backend imports
it at start; only its t-SNE projection calls it, and the tests compare no t-SNE answers."""


def bh_sne(*args: object, **kwargs: object) -> None:
    raise RuntimeError("tsne-mp is not installed here")
