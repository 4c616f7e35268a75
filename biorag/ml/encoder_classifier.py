"""The MeSH classifier's model: a mean-pooled encoder under a multi-label linear head.

Shared by inference (`biorag.ml.mesh_classifier`) and training (`training/`), and imports
torch only, so the accelerator machines (no pydantic) can build it too.
"""

from __future__ import annotations


def build_encoder_classifier(encoder, n_labels: int, dropout: float = 0.1):
    """Mean-pooled encoder -> dropout -> linear layer with one logit per descriptor."""
    import torch
    from torch import nn

    class EncoderMultiLabel(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = encoder
            self.dropout = nn.Dropout(dropout)
            self.head = nn.Linear(encoder.config.hidden_size, n_labels)

        def forward(self, input_ids, attention_mask, **_):
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-6)
            return self.head(self.dropout(pooled))

    torch.manual_seed(0)
    return EncoderMultiLabel()
