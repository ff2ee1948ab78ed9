// Merged into @jupyter/builder's configuration (package.json: jupyterlab.rspackConfig).
// Module ids from paths relative to this folder ('named'), not from hashes of identifiers
// that hold the absolute path of the checkout (Rspack's 'deterministic' ids do for the
// module-federation container entry): so a build anywhere gives the same bytes.
module.exports = {
  optimization: {
    moduleIds: 'named',
    chunkIds: 'named'
  }
};
