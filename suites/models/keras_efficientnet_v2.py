# labels: name::keras-efficientnet-v2 author::keras task::Computer_Vision framework::keras family::keras-applications
"""EfficientNetV2-B0 (keras.applications.EfficientNetV2B0, weights=None, logits, its built-in rescaling) on the
JAX, TensorFlow and torch backends, with the same NumPy weights on each."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, image_size, keras_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, image_size, keras_model


def build(keras):
    h, w = image_size()
    return keras.applications.EfficientNetV2B0(weights=None, input_shape=(h, w, 3), classifier_activation=None)


keras_model(__file__, build, image(size=image_size(), channels_last=True))
