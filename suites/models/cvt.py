# labels: name::cvt author::huggingface task::Computer_Vision framework::torch family::transformers-vision
"""CvT (transformers CvtModel), microsoft/cvt-13's literal config, random weights; judges last_hidden_state (the final stage's feature map)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.CvtModel(transformers.CvtConfig(
        patch_sizes=[7, 3, 3], patch_stride=[4, 2, 2], patch_padding=[2, 1, 1], embed_dim=[64, 192, 384],
        num_heads=[1, 3, 6], depth=[1, 2, 10], mlp_ratio=[4.0, 4.0, 4.0], drop_path_rate=[0.0, 0.0, 0.1],
        qkv_bias=[True, True, True], cls_token=[False, False, True]))


torch_model(__file__, build, image())
