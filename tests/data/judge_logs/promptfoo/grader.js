// An offline grading provider for promptfoo's model-graded assertions: it answers as an LLM grader would,
// deterministically from the text it is asked to grade (llm-rubric expects JSON; model-graded-closedqa expects Y/N).
class OfflineGrader {
  constructor(options) { this.providerId = (options && options.id) || 'offline-grader'; }
  id() { return this.providerId; }
  async callApi(prompt) {
    const p = typeof prompt === 'string' ? prompt : JSON.stringify(prompt);
    if (p.includes('Does the submission meet the criterion')) {
      // model-graded-closedqa: the verdict is the last Y or N
      const ok = !p.includes('banana');
      return { output: ok ? 'The submission meets it.\nY' : 'It does not.\nN' };
    }
    if (p.includes('UNPARSABLE')) return { output: 'I refuse to answer in JSON' };
    const pass = !p.includes('banana');
    const score = p.includes('short') ? 0.4 : pass ? 0.9 : 0.1;
    return { output: JSON.stringify({ reason: pass ? 'Meets the rubric' : 'Misses the rubric', pass, score }) };
  }
}
module.exports = OfflineGrader;
