# labels: name::mobilevit author::huggingface task::Computer_Vision framework::torch family::transformers-vision
"""MobileViT (transformers MobileViTModel), apple/mobilevit-small's literal config (so 256x256 inputs), random weights; judges last_hidden_state (the final feature map).

initializer_range 0.2, not the config's 0.02: with 0.02 and untrained batch
norms the activations shrink layer after layer to subnormal floats (|x| ~ 1e-40),
where float32 keeps a few bits and every stage "diverges" from float64; with 0.2
the output is O(0.1)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.MobileViTModel(transformers.MobileViTConfig(
        image_size=256, patch_size=2, hidden_sizes=[144, 192, 240],
        neck_hidden_sizes=[16, 32, 64, 96, 128, 160, 640], num_attention_heads=4, mlp_ratio=2.0,
        expand_ratio=4.0, hidden_act="silu", conv_kernel_size=3, output_stride=32,
        initializer_range=0.2))


torch_model(__file__, build, image(size=(256, 256)))
