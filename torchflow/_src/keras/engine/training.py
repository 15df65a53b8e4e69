"""``Model.compile/fit/evaluate/predict`` (filled in by the training work)."""


class TrainingMixin:
    pass
