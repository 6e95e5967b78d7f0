// The first-load engine's Emscripten glue without eval, for the page's own thread (src/boot.ts).
//
// Embind (Emscripten 3.1.6) builds two kinds of functions from source text at run time: a named
// wrapper (`createNamedFunction`, `new Function(...)`) and each bound call's invoker
// (`craftInvokerFunction`, `new_(Function, ...)`). The engine worker runs them under its own
// policy, which allows 'unsafe-eval' (csp.ts); the document's policy allows no eval, so the copy
// of the glue the page itself evaluates has both replaced by closures that do the same steps
// (the invoker: check the argument count, convert each argument to its wire type, call, run the
// destructors, convert the result; Embind's generated text, read in the built glue). The page
// only calls the engine through it for the first result (docs/web.md "How it is built"); the
// call overhead of a closure against a generated function is nothing next to a JSON predict.
//
// `withoutEval` fails (rather than returning the glue unchanged) when a pattern is not found
// exactly once or any `Function` constructor remains, so a new Emscripten cannot slip eval back
// into the page; test/noeval.test.ts holds the patched glue's answers equal to the original's.

/** The two sites, as Emscripten 3.1.6 -O2 writes them, and what replaces each. */
const SITES: Array<{ what: string; find: RegExp; replace: string }> = [
  {
    what: 'createNamedFunction',
    find: /function createNamedFunction\(name,body\)\{name=makeLegalFunctionName\(name\);return new Function\([^]*?\)\(body\)\}/g,
    // A function expression named by a computed property: constructible like the original.
    replace: 'function createNamedFunction(name,body){name=makeLegalFunctionName(name);return{[name]:function(){"use strict";return body.apply(this,arguments)}}[name]}',
  },
  {
    what: 'craftInvokerFunction',
    find: /var invokerFunction=new_\(Function,args1\)\.apply\(null,args2\);return invokerFunction\}/g,
    replace:
      'return function(){if(arguments.length!==argCount-2){throwBindingError("function "+humanName+" called with "+arguments.length+" arguments, expected "+(argCount-2)+" args!")}' +
      'var destructors=needsDestructorStack?[]:null;var wired=[cppTargetFunc];' +
      'if(isClassMethodFunc){wired.push(argTypes[1].toWireType(destructors,this))}' +
      'for(var i=0;i<argCount-2;++i){wired.push(argTypes[i+2].toWireType(destructors,arguments[i]))}' +
      'var rv=cppInvokerFunc.apply(null,wired);' +
      'if(needsDestructorStack){runDestructors(destructors)}else{for(var i=isClassMethodFunc?1:2;i<argTypes.length;++i){if(argTypes[i].destructorFunction!==null){argTypes[i].destructorFunction(wired[isClassMethodFunc?i:i-1])}}}' +
      'if(returns){return argTypes[0].fromWireType(rv)}}}',
  },
];

/** The glue's text with Embind's run-time code generation replaced; throws when it cannot. */
export function withoutEval(glue: string): string {
  let out = glue;
  for (const site of SITES) {
    const found = out.match(site.find)?.length ?? 0;
    if (found !== 1) throw new Error(`wasm-noeval: Embind's ${site.what} was found ${found} times in the glue, not once (another Emscripten?)`);
    out = out.replace(site.find, site.replace);
  }
  if (/new Function|new_\(Function|\beval\(/.test(out)) throw new Error('wasm-noeval: the glue still builds functions from text');
  return out;
}
