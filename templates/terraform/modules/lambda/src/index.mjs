// Placeholder handler deployed with the stack. The application's own pipeline
// replaces the code (aws lambda update-function-code); Terraform ignores later code changes.
export const handler = async (event) => {
  console.log(JSON.stringify({ message: 'invoked', requestKeys: Object.keys(event ?? {}) }));
  return { statusCode: 200, body: JSON.stringify({ ok: true }) };
};
