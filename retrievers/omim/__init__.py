"""OMIM: gene-disease links, live through E-utilities or from the local gene store."""
