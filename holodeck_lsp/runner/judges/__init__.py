"""LLM judges for the judged metrics (geval, rag, groundedness / relevance / coherence /
fluency): the run's pool of judge clients (`pool`), the HTTP transport of each provider
(`transport`), deepeval's metrics (`deepeval_judge`, imported only for a live judgement)
and our prompt for the four standard judged metrics (`standard_judge`)."""
