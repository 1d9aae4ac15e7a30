# labels: name::dpt author::huggingface task::Computer_Vision framework::torch family::transformers-vision
"""DPT (transformers DPTForDepthEstimation), DPTConfig's default ViT-base DPT (reassemble/fusion neck, depth head; its 384-pixel position table resized to the 224x224 input to keep the float64 reference cheap), literal config, random weights; judges predicted_depth."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.DPTForDepthEstimation(transformers.DPTConfig(
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072, image_size=384,
        patch_size=16, backbone_out_indices=[2, 5, 8, 11], readout_type="project",
        reassemble_factors=[4, 2, 1, 0.5], neck_hidden_sizes=[96, 192, 384, 768], fusion_hidden_size=256))


torch_model(__file__, build, image())
