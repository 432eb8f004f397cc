//===- PluginLoadTest.cpp - load Q2Plugin.so like mlir-opt does -----------===//
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

TEST(Q2Plugin, LoadsAsPassPlugin) {
  llvm::Expected<mlir::PassPlugin> plugin = mlir::PassPlugin::load(Q2_PLUGIN_PATH);
  // Fail with the loader's own message (dlopen error, missing symbol, ...).
  ASSERT_TRUE(static_cast<bool>(plugin)) << llvm::toString(plugin.takeError());
  EXPECT_EQ(plugin->getPluginName(), "Q2Passes");
  EXPECT_EQ(plugin->getAPIVersion(), uint32_t(MLIR_PLUGIN_API_VERSION));
  EXPECT_EQ(mlir::PassInfo::lookup("quantum-cancel-inverses"), nullptr);
  plugin->registerPassRegistryCallbacks();
  EXPECT_NE(mlir::PassInfo::lookup("quantum-cancel-inverses"), nullptr);
  EXPECT_NE(mlir::PassInfo::lookup("quantum-merge-rotations"), nullptr);
  // A second registration (plugin loaded twice) must not abort.
  plugin->registerPassRegistryCallbacks();
}

TEST(Q2Plugin, LoadsAsDialectPlugin) {
  llvm::Expected<mlir::DialectPlugin> plugin =
      mlir::DialectPlugin::load(Q2_PLUGIN_PATH);
  ASSERT_TRUE(static_cast<bool>(plugin)) << llvm::toString(plugin.takeError());
  mlir::DialectRegistry registry;
  EXPECT_FALSE(registry.getDialectAllocator("quantum"));
  plugin->registerDialectRegistryCallbacks(registry);
  EXPECT_TRUE(static_cast<bool>(registry.getDialectAllocator("quantum")));
  plugin->registerDialectRegistryCallbacks(registry);
}

TEST(Q2Plugin, MissingFileReportsLoaderError) {
  llvm::Expected<mlir::PassPlugin> plugin =
      mlir::PassPlugin::load("/nonexistent/Q2Plugin.so");
  ASSERT_FALSE(static_cast<bool>(plugin));
  std::string message = llvm::toString(plugin.takeError());
  EXPECT_NE(message.find("Could not load library"), std::string::npos)
      << message;
}
