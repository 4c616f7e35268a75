"""`pheval run --runner bioragphevalrunner`: PhEval's three phases for BioRAG. prepare checks
the options and the phenopackets before anything runs; run ranks every phenopacket with one
`biorag prioritise` call; post_process writes PhEval's gene results."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pheval.runners.runner import PhEvalRunner

from evaluation.pheval_plugin.command import prioritise_command, run_prioritise
from evaluation.pheval_plugin.gene_results import hpo_release, write_gene_results, write_raw_results
from evaluation.pheval_plugin.options import RunnerOptions, read_options


@dataclass
class BioRAGPhEvalRunner(PhEvalRunner):
    """Phenotype-only gene prioritisation with BioRAG's HPO store (no variants, no diseases)."""

    input_dir: Path
    testdata_dir: Path
    tmp_dir: Path
    output_dir: Path
    config_file: Path
    version: str
    raw_files: list[Path] = field(default_factory=list)

    @property
    def phenopacket_dir(self) -> Path:
        return Path(self.testdata_dir) / "phenopackets"

    @property
    def options(self) -> RunnerOptions:
        return read_options(self.input_dir_config.tool_specific_configuration_options,
                            Path(self.input_dir) / "config.yaml")

    def build_output_directory_structure(self) -> None:
        """PhEval makes the subfolders only inside an existing --output-dir: made here too."""
        Path(self.output_dir).mkdir(parents=True, exist_ok=True)
        super().build_output_directory_structure()

    def prepare(self) -> None:
        if self._get_variant_analysis() or self._get_disease_analysis():
            raise ValueError(f"{Path(self.input_dir) / 'config.yaml'}: BioRAG ranks genes only: "
                             "set variant_analysis and disease_analysis to false")
        if not self._get_gene_analysis():
            raise ValueError(f"{Path(self.input_dir) / 'config.yaml'}: set gene_analysis to true")
        if not self.phenopacket_dir.is_dir():
            raise FileNotFoundError(f"{self.phenopacket_dir}: no such folder (PhEval reads "
                                    "<testdata-dir>/phenopackets)")
        prioritise_command(self.options, self.phenopacket_dir)  # the command must resolve

    def run(self) -> None:
        result = run_prioritise(prioritise_command(self.options, self.phenopacket_dir), self.tool_input_commands_dir)
        self.raw_files = write_raw_results(result, self.raw_results_dir)

    def post_process(self) -> None:
        """Only this run's raw results: an --output-dir used before may hold other cases'."""
        write_gene_results(self.raw_files, Path(self.output_dir), self.phenopacket_dir)

    def construct_meta_data(self):
        """results.yml also says which command ranked the cases and on which HPO release, the
        two things that change BioRAG's ranks."""
        meta = self.meta_data
        if meta.tool_version is None:
            meta.tool_version = self.input_dir_config.tool_version
        commands = self.tool_input_commands_dir / "biorag_commands.txt"
        meta.tool_specific_configuration_options = {
            "top_k": self.options.top_k,
            "command": commands.read_text().strip() if commands.exists() else None,
            "hpo_release": hpo_release(self.raw_files),
        }
        return meta
