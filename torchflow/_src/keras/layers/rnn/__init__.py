"""Recurrent layers: cells, ``RNN``, ``SimpleRNN``/``LSTM``/``GRU``, wrappers."""
