// SPDX-License-Identifier: GPL-2.0

#include <linux/error-injection.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <linux/rtnetlink.h>

#include "i82574.h"

static const struct pci_device_id i82574_pci_tbl[] = {
	{ PCI_VDEVICE(INTEL, 0x10d3) },
	{ }
};
MODULE_DEVICE_TABLE(pci, i82574_pci_tbl);

static irqreturn_t i82574_msix_queue(int irq, void *data)
{
	struct i82574_napi_vector *nv = READ_ONCE(*(struct i82574_napi_vector **)data);

	if (nv) {
		nv->events++;
		napi_schedule_irqoff(&nv->napi);
	}
	return IRQ_HANDLED;
}

/* The service work checks the link (and its pause) after every LSC: a
 * renegotiation may end with the link up as before
 */
static void i82574_link_event(struct i82574_dev *priv)
{
	set_bit(I82574_STATE_LINK_CHANGE, &priv->state);
	mod_delayed_work(system_wq, &priv->service_task, 0);
}

static irqreturn_t i82574_msix_other(int irq, void *data)
{
	struct i82574_dev *priv = data;
	u32 icr = rd32(priv, I82574_ICR);

	if (unlikely(test_bit(I82574_STATE_TESTING, &priv->state)))
		atomic_or(icr, &priv->test_icr);
	/* The read cleared every cause, also a queue cause that waits in ICR
	 * for its masked vector (NAPI running) or its EITR interval: raise it
	 * again, or its frames wait for the next interrupt of that queue.
	 */
	if (icr & I82574_INT_QUEUES)
		wr32(priv, I82574_ICS, icr & I82574_INT_QUEUES);
	if (icr & I82574_INT_LSC)
		i82574_link_event(priv);
	return IRQ_HANDLED;
}

static irqreturn_t i82574_intr(int irq, void *data)
{
	struct i82574_dev *priv = data;
	struct i82574_napi_vector *nv;
	u32 icr;

	/* a shared line may fire while the device sits in D3 */
	if (pm_runtime_suspended(&priv->pdev->dev))
		return IRQ_NONE;
	icr = rd32(priv, I82574_ICR);
	if (!icr)
		return IRQ_NONE;
	if (unlikely(test_bit(I82574_STATE_TESTING, &priv->state)))
		atomic_or(icr, &priv->test_icr);
	if (icr & I82574_INT_LSC)
		i82574_link_event(priv);
	nv = READ_ONCE(priv->nv[0]);
	if (nv && (icr & (I82574_INT_RXT0 | I82574_INT_TXDW))) {
		wr32(priv, I82574_IMC, I82574_INT_RXT0 | I82574_INT_TXDW);
		nv->events++;
		napi_schedule_irqoff(&nv->napi);
	}
	return IRQ_HANDLED;
}

static int i82574_request_msix(struct i82574_dev *priv)
{
	struct pci_dev *pdev = priv->pdev;
	unsigned int v;
	int err;

	snprintf(priv->irq_name[0], sizeof(priv->irq_name[0]), "%s-%s-other",
		 I82574_DRV_NAME, pci_name(pdev));
	err = request_irq(pci_irq_vector(pdev, I82574_VEC_OTHER),
			  i82574_msix_other, 0, priv->irq_name[0], priv);
	if (err)
		return err;
	for (v = 0; v < I82574_MAX_QP; v++) {
		snprintf(priv->irq_name[v + 1], sizeof(priv->irq_name[0]),
			 "%s-%s-q%u", I82574_DRV_NAME, pci_name(pdev), v);
		err = request_irq(pci_irq_vector(pdev, v + 1),
				  i82574_msix_queue, 0, priv->irq_name[v + 1],
				  &priv->nv[v]);
		if (err)
			goto free_irqs;
	}
	return 0;

free_irqs:
	while (v--)
		free_irq(pci_irq_vector(pdev, v + 1), &priv->nv[v]);
	free_irq(pci_irq_vector(pdev, I82574_VEC_OTHER), priv);
	return err;
}

/* OTHER's vector and one per queue pair, or an error. Function error
 * injection (fail_function) can fail it, which a platform without MSI-X
 * does: the single-vector mode is tested on one that has it.
 */
static noinline int i82574_alloc_msix(struct pci_dev *pdev)
{
	int n = pci_alloc_irq_vectors(pdev, I82574_NUM_MSIX, I82574_NUM_MSIX,
				      PCI_IRQ_MSIX);

	return n < 0 ? n : 0;
}
ALLOW_ERROR_INJECTION(i82574_alloc_msix, ERRNO);

static int i82574_request_irqs(struct i82574_dev *priv)
{
	struct pci_dev *pdev = priv->pdev;
	int err;

	if (!i82574_alloc_msix(pdev)) {
		priv->msix = true;
		err = i82574_request_msix(priv);
		if (!err)
			return 0;
		pci_free_irq_vectors(pdev);
		priv->msix = false;
	}

	/* one queue pair on a single MSI or INTx interrupt */
	err = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSI | PCI_IRQ_INTX);
	if (err < 0)
		return err;
	snprintf(priv->irq_name[0], sizeof(priv->irq_name[0]), "%s-%s",
		 I82574_DRV_NAME, pci_name(pdev));
	err = request_irq(pci_irq_vector(pdev, 0), i82574_intr, IRQF_SHARED,
			  priv->irq_name[0], priv);
	if (err)
		pci_free_irq_vectors(pdev);
	return err;
}

static void i82574_free_irqs(struct i82574_dev *priv)
{
	struct pci_dev *pdev = priv->pdev;
	unsigned int v;

	free_irq(pci_irq_vector(pdev, 0), priv);
	for (v = 0; priv->msix && v < I82574_MAX_QP; v++)
		free_irq(pci_irq_vector(pdev, v + 1), &priv->nv[v]);
	pci_free_irq_vectors(pdev);
}

static void i82574_init_priv(struct i82574_dev *priv)
{
	priv->cfg.num_qp = priv->msix ? I82574_MAX_QP : 1;
	priv->cfg.tx_size = I82574_RING_DEFAULT;
	priv->cfg.rx_size = I82574_RING_DEFAULT;
	priv->rx_usecs = I82574_ITR_DEFAULT_US;
	priv->tx_usecs = I82574_ITR_DEFAULT_US;
	netdev_rss_key_fill(priv->rss_key, sizeof(priv->rss_key));
	i82574_default_reta(priv);
	spin_lock_init(&priv->stats_lock);
	mutex_init(&priv->hw_stats_lock);
	u64_stats_init(&priv->hw_syncp);
	INIT_DELAYED_WORK(&priv->service_task, i82574_service_task);
}

/* NVM type, MAC reset, NVM check and settings, PHY reset and setup; the
 * PHY is then powered
 * down, as the interface is (unless its link is needed, see
 * i82574_phy_power_down()). On failure DRV_LOAD may be left set.
 */
static int i82574_init_hw(struct i82574_dev *priv)
{
	int err;

	i82574_nvm_detect(priv);
	err = i82574_hw_reset(priv);
	if (err)
		return err;
	err = i82574_read_nvm_config(priv);
	if (err)
		return err;
	err = i82574_phy_init(priv);
	if (err) {
		dev_err(&priv->pdev->dev, "PHY setup failed: %pe\n",
			ERR_PTR(err));
		return err;
	}
	i82574_phy_power_down(priv);
	return 0;
}

static int i82574_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct net_device *netdev;
	struct i82574_dev *priv;
	int err;

	i82574_disable_aspm(pdev);
	err = pci_enable_device_mem(pdev);
	if (err)
		return err;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto disable_device;
	err = pci_request_mem_regions(pdev, I82574_DRV_NAME);
	if (err)
		goto disable_device;
	pci_set_master(pdev);

	err = -ENOMEM;
	netdev = alloc_etherdev_mqs(sizeof(*priv), I82574_MAX_QP,
				    I82574_MAX_QP);
	if (!netdev)
		goto release_regions;
	SET_NETDEV_DEV(netdev, &pdev->dev);
	priv = netdev_priv(netdev);
	priv->netdev = netdev;
	priv->pdev = pdev;
	mutex_init(&priv->hw_sem_lock);
	mutex_init(&priv->link_lock);
	i82574_link_defaults(priv);
	pci_set_drvdata(pdev, priv);
	priv->hw = pci_ioremap_bar(pdev, 0);
	if (!priv->hw)
		goto free_netdev;

	i82574_netdev_setup(netdev);
	i82574_set_ethtool_ops(netdev);
	err = i82574_init_hw(priv);
	if (err)
		goto release_hw;
	err = i82574_request_irqs(priv);
	if (err)
		goto release_hw;
	i82574_init_priv(priv);
	/* for slot_reset after a PCIe error */
	pci_save_state(pdev);
	netif_set_real_num_queues(netdev, priv->cfg.num_qp, priv->cfg.num_qp);
	netif_carrier_off(netdev);

	err = register_netdev(netdev);
	if (err)
		goto free_irqs;
	schedule_delayed_work(&priv->service_task, I82574_SERVICE_PERIOD);
	i82574_debugfs_add(priv);
	i82574_pm_init(priv);
	netdev_info(netdev, "%pM, %s, %u queue pairs\n", netdev->dev_addr,
		    priv->msix ? "MSI-X" : "single interrupt",
		    priv->cfg.num_qp);
	return 0;

free_irqs:
	i82574_free_irqs(priv);
	mutex_destroy(&priv->hw_stats_lock);
release_hw:
	i82574_set_drv_load(priv, false);
	iounmap(priv->hw);
free_netdev:
	mutex_destroy(&priv->hw_sem_lock);
	free_netdev(netdev);
release_regions:
	pci_release_mem_regions(pdev);
disable_device:
	pci_disable_device(pdev);
	return err;
}

static void i82574_remove(struct pci_dev *pdev)
{
	struct i82574_dev *priv = pci_get_drvdata(pdev);

	i82574_pm_exit(priv);
	i82574_debugfs_del(priv);
	unregister_netdev(priv->netdev);
	cancel_delayed_work_sync(&priv->service_task);
	i82574_hw_quiesce(priv);
	/* ndo_stop powered the PHY down, or probe did */
	i82574_set_drv_load(priv, false);
	i82574_free_irqs(priv);
	iounmap(priv->hw);
	mutex_destroy(&priv->hw_stats_lock);
	mutex_destroy(&priv->hw_sem_lock);
	free_netdev(priv->netdev);
	pci_release_mem_regions(pdev);
	/* a failed PCIe error recovery leaves it disabled */
	if (pci_is_enabled(pdev))
		pci_disable_device(pdev);
}

static struct pci_driver i82574_driver = {
	.name		= I82574_DRV_NAME,
	.id_table	= i82574_pci_tbl,
	.probe		= i82574_probe,
	.remove		= i82574_remove,
	.shutdown	= i82574_shutdown,
	.err_handler	= &i82574_err_handler,
	.driver.pm	= pm_ptr(&i82574_pm_ops),
};

static int __init i82574_init_module(void)
{
	int err;

	i82574_debugfs_init();
	err = pci_register_driver(&i82574_driver);
	if (err)
		i82574_debugfs_exit();
	return err;
}
module_init(i82574_init_module);

static void __exit i82574_exit_module(void)
{
	pci_unregister_driver(&i82574_driver);
	i82574_debugfs_exit();
}
module_exit(i82574_exit_module);

MODULE_DESCRIPTION("Intel 82574L multi-queue Ethernet driver");
MODULE_LICENSE("GPL");
