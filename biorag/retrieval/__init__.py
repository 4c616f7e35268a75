"""How sources plug in: the `Retriever` protocol every source implements and the registry the
composition root fills. The core loops over registered sources and never names one."""
