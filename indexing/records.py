"""The record types that flow through the indexing pipeline."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class MeshHeading:
    ui: str
    name: str
    major: bool = False
    qualifiers: list[str] = field(default_factory=list)


@dataclass
class PubmedRecord:
    pmid: int
    title: str = ""
    abstract: str = ""
    journal: str = ""
    year: int | None = None
    languages: list[str] = field(default_factory=list)
    publication_types: list[str] = field(default_factory=list)
    mesh: list[MeshHeading] = field(default_factory=list)
    chemicals: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    retracted: bool = False  # CommentsCorrections RefType="RetractionIn" or pub type
    version: int = 1
    source: str = ""  # file the record came from

    @property
    def mesh_uis(self) -> list[str]:
        return [m.ui for m in self.mesh if m.ui]

    @property
    def mesh_names(self) -> list[str]:
        return [m.name for m in self.mesh if m.name]

    @property
    def major_mesh_uis(self) -> list[str]:
        return [m.ui for m in self.mesh if m.ui and m.major]

    def document_text(self) -> str:
        """What the document encoder sees: title and abstract."""
        return f"{self.title}\n{self.abstract}".strip()


@dataclass
class DeleteCitations:
    """An update file's <DeleteCitation>: these PMIDs leave the index."""

    pmids: list[int]
    source: str = ""
