# labels: name::audio-spectrogram-transformer author::huggingface task::Audio framework::torch family::transformers-audio
"""Audio Spectrogram Transformer (transformers ASTModel), MIT/ast-finetuned-audioset-10-10-0.4593's literal config, random weights; input_values (b, 1024, 128) (frames x mel bins); judges last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import batch_size, tensor, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import batch_size, tensor, torch_model


def build():
    import transformers

    return transformers.ASTModel(transformers.ASTConfig(
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072, patch_size=16,
        frequency_stride=10, time_stride=10, max_length=1024, num_mel_bins=128, layer_norm_eps=1e-12))


B = batch_size()
torch_model(__file__, build, tensor(f"b{B}-1024x128", (B, 1024, 128), B))
