# labels: name::keras-inception-v3 author::keras task::Computer_Vision framework::keras family::keras-applications
"""Inception-v3 (keras.applications.InceptionV3, weights=None, logits) at its native 299x299 on the JAX,
TensorFlow and torch backends, with the same NumPy weights on each."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, image_size, keras_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, image_size, keras_model


def build(keras):
    h, w = image_size(299)
    return keras.applications.InceptionV3(weights=None, input_shape=(h, w, 3), classifier_activation=None)


keras_model(__file__, build, image(size=image_size(299), channels_last=True))
