"""The application: the pipeline (typed recipe -> run -> Report), the store, history, access, serving."""
