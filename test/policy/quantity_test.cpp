// placeholder: replaced by the test suite
